package cluster_test

import (
	"errors"
	"testing"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// A stale writer appending the seq a new holder already wrote carries
// the same message id (<run>:<seq>). One node checks the fence first; a
// clustered stream checks the id first and answers "duplicate" (see
// clustertest's TestClusterIsolatedHolderIsFenced, which caught it):
// either way the writer must be fenced, not told its line landed.
func TestJournalStaleWriterOfTheSameSeqIsFenced(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	old, err := c.OpenJournal(ctx, "dup", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Append(ctx, []byte(`{"seq":1,"by":"old"}`), 1); err != nil {
		t.Fatal(err)
	}
	next, err := c.OpenJournal(ctx, "dup", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Append(ctx, []byte(`{"seq":2,"by":"new"}`), 2); err != nil {
		t.Fatal(err)
	}
	if err := old.Append(ctx, []byte(`{"seq":2,"by":"old"}`), 2); !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("the stale writer's append of seq 2 = %v, want ErrFenced", err)
	}
	// A retry of a line that did land is still accepted as landed.
	if err := next.Append(ctx, []byte(`{"seq":3,"by":"new"}`), 3); err != nil {
		t.Fatal(err)
	}
}
