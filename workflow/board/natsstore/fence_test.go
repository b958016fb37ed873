package natsstore

import (
	"context"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/deltakit/delta/workflow/board"
)

// TestLateWriteRefused: a holder whose lock lease lapsed (here: deleted,
// as its expiry would) while it was paused finds its write refused once
// another holder has written the record it read, instead of overwriting it.
func TestLateWriteRefused(t *testing.T) {
	ctx := context.Background()
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	cfg := board.Config{Agents: []string{"a"}}
	late, _, err := openStore(ctx, c, "fence", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	other, _, err := openStore(ctx, clustertest.Connect(t, one.URL), "fence", board.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	unlock, err := late.Lock(lockState)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if b, err := late.Get("cursors/a"); err != nil || b != nil {
		t.Fatalf("Get of a new key: %q, %v", b, err)
	}
	// The lease lapses: the key goes, as at the end of its TTL.
	leases, err := c.JS.KeyValue(ctx, cluster.LeaseBucket)
	if err != nil {
		t.Fatal(err)
	}
	if err := leases.Purge(ctx, cluster.BoardLockKey("fence", lockState)); err != nil {
		t.Fatal(err)
	}
	unlockOther, err := other.Lock(lockState)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Put("cursors/a", []byte("7\n")); err != nil {
		t.Fatal(err)
	}
	unlockOther()

	err = late.Put("cursors/a", []byte("3\n"))
	if err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("the late holder's write: %v, want it refused", err)
	}
	if b, _ := other.Get("cursors/a"); string(b) != "7\n" {
		t.Fatalf("the record is %q after the late write, want the other holder's 7", b)
	}
}
