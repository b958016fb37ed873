package natsstore_test

import (
	"fmt"
	"testing"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/natsstore"
)

// benchStores runs f on a fresh board of each store, file and cluster (a
// one-node cluster in this process), so that one run gives the ratio.
func benchStores(b *testing.B, f func(b *testing.B, p board.Provider)) {
	one := clustertest.StartSingle(b, cluster.Settings{})
	c := clustertest.Connect(b, one.URL)
	n := 0
	for _, kind := range []string{"file", "cluster"} {
		b.Run(kind, func(b *testing.B) {
			cfg := board.Config{Agents: []string{"a", "b"}}
			var p board.Provider
			var err error
			if kind == "file" {
				p, err = board.OpenFile(b.TempDir(), cfg)
			} else {
				n++
				p, err = natsstore.Open(bg, c, fmt.Sprintf("bench%d", n), cfg)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			f(b, p)
		})
	}
}

// BenchmarkAppend is one durable channel message (the cluster's: a stream
// append expecting the last sequence, stored to disk before its ack).
func BenchmarkAppend(b *testing.B) {
	benchStores(b, func(b *testing.B, p board.Provider) {
		for i := 0; b.Loop(); i++ {
			if _, err := p.Append(bg, "a", fmt.Sprintf("@b message %d", i)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkInbox is an inbox check on a channel of 200 entries, 10 unread.
func BenchmarkInbox(b *testing.B) {
	benchStores(b, func(b *testing.B, p board.Provider) {
		for i := range 200 {
			if _, err := p.Append(bg, "a", fmt.Sprintf("@b message %d", i)); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.Ack(bg, "b", 190); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			in, err := p.Inbox(bg, "b")
			if err != nil || len(in) != 10 {
				b.Fatalf("inbox = %d, %v", len(in), err)
			}
		}
	})
}

// BenchmarkAck is an inbox acknowledgement: the state lock and one
// cursor write (in the cluster: a lease, a compare-and-swap, a release).
func BenchmarkAck(b *testing.B) {
	benchStores(b, func(b *testing.B, p board.Provider) {
		if _, err := p.Append(bg, "a", "@b hello"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := p.Ack(bg, "b", 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
