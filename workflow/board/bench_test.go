package board

import (
	"fmt"
	"testing"
)

// BenchmarkAppend is the cost of one durable channel message with the file
// provider: lock, read the last seq, one write, fsync, channel.md.
func BenchmarkAppend(b *testing.B) {
	p, err := OpenFile(b.TempDir(), Config{Agents: []string{"a", "b"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Append(bg, "a", fmt.Sprintf("@b message %d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInbox is an inbox check on a channel of 1000 entries.
func BenchmarkInbox(b *testing.B) {
	p, err := OpenFile(b.TempDir(), Config{Agents: []string{"a", "b"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for i := range 1000 {
		if _, err := p.Append(bg, "a", fmt.Sprintf("@b message %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Ack(bg, "b", 990); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		in, err := p.Inbox(bg, "b")
		if err != nil || len(in) != 10 {
			b.Fatalf("inbox = %d, %v", len(in), err)
		}
	}
}
