package clustertest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*clustertest.Budget)
	t.Cleanup(cancel)
	return ctx
}

// replayAll returns run's mirrored journal, checking its chain.
func replayAll(t *testing.T, ctx context.Context, c *cluster.Cluster, run string) []cluster.Entry {
	t.Helper()
	var got []cluster.Entry
	err := c.Replay(ctx, run, false, func(e cluster.Entry) error {
		var before *cluster.Entry
		if len(got) > 0 {
			before = &got[len(got)-1]
		}
		if err := cluster.Chain(before, e); err != nil {
			return err
		}
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatalf("replay %s: %v", run, err)
	}
	return got
}

// Killing DELTA_JOURNAL's leader in the middle of a run of appends loses
// no acknowledged append, and the appends go on through the new leader.
func TestClusterJournalLeaderKilled(t *testing.T) {
	three := clustertest.StartThree(t, cluster.Settings{LeaseTTL: 2 * time.Second})
	ctx := ctxT(t)
	c := clustertest.Connect(t, three.URLs())
	lease, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "a"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.OpenJournal(ctx, "r", lease.Epoch())
	if err != nil {
		t.Fatal(err)
	}
	const total, killAt = 40, 15
	killed := -1
	for seq := 1; seq <= total; seq++ {
		if seq == killAt {
			killed = three.StreamLeader(cluster.JournalStream)
			three.Kill(killed)
			t.Logf("killed %s, the journal's leader, before append %d", three.Name(killed), seq)
		}
		if err := w.Append(ctx, []byte(fmt.Sprintf(`{"seq":%d}`, seq)), seq); err != nil {
			t.Fatalf("append %d after the leader was killed: %v", seq, err)
		}
	}
	// The killed node rejoins from its store and catches up.
	three.Restart(killed)
	if err := w.Append(ctx, []byte(fmt.Sprintf(`{"seq":%d}`, total+1)), total+1); err != nil {
		t.Fatal(err)
	}
	got := replayAll(t, ctx, c, "r")
	if got = got[:len(got)-1]; len(got) != total {
		t.Fatalf("the journal holds %d of %d acknowledged appends", len(got), total)
	}
	for i, e := range got {
		if want := fmt.Sprintf(`{"seq":%d}`, i+1); string(e.Line) != want {
			t.Fatalf("line %d = %s, want %s", i+1, e.Line, want)
		}
	}
}

// A holder whose node is cut off from the other two loses its lease past
// the TTL; the majority side takes the lease over and appends; the old
// holder's late append is refused (or never answered), never stored; and
// once healed the journal is one unbroken chain.
func TestClusterIsolatedHolderIsFenced(t *testing.T) {
	three := clustertest.StartThree(t, cluster.Settings{LeaseTTL: 2 * time.Second})
	ctx := ctxT(t)
	// The holder talks to the journal's leader, the node to be cut off.
	j := three.StreamLeader(cluster.JournalStream)
	others := []int{(j + 1) % 3, (j + 2) % 3}
	a := clustertest.Connect(t, three.URL(j))
	b := clustertest.Connect(t, three.URLs(others...))
	la, err := a.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "a"})
	if err != nil {
		t.Fatal(err)
	}
	wa, err := a.OpenJournal(ctx, "r", la.Epoch())
	if err != nil {
		t.Fatal(err)
	}
	wa.Retry = 3 * time.Second
	for seq := 1; seq <= 3; seq++ {
		if err := wa.Append(ctx, []byte(fmt.Sprintf(`{"seq":%d,"by":"a"}`, seq)), seq); err != nil {
			t.Fatal(err)
		}
	}
	three.Isolate(j)
	t.Logf("isolated %s, the journal's leader and the holder's node", three.Name(j))
	select {
	case <-la.Lost():
	case <-ctx.Done():
		t.Fatal("the isolated holder never noticed it lost its lease")
	}
	t.Logf("the holder noticed: %v", la.Err())
	lb := acquireEventually(t, ctx, b, cluster.LeaseKey("r"))
	if lb.Epoch() <= la.Epoch() {
		t.Fatalf("the new holder's epoch %d is not above the old one's %d", lb.Epoch(), la.Epoch())
	}
	wb := openEventually(t, ctx, b, "r", lb.Epoch())
	if wb.LastSeq() != 3 {
		t.Fatalf("the majority's journal ends at %d, want 3", wb.LastSeq())
	}
	if err := wb.Append(ctx, []byte(`{"seq":4,"by":"b"}`), 4); err != nil {
		t.Fatal(err)
	}
	// The old holder, still cut off, tries its next line.
	late := []byte(`{"seq":4,"by":"a"}`)
	if err := wa.Append(ctx, late, 4); err == nil {
		t.Fatal("the isolated holder's late append was acknowledged")
	} else {
		t.Logf("isolated append: %v", err)
	}
	t.Log("healing")
	three.Heal()
	if err := three.WaitCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	// Healed, the old writer is refused by the fence, never stored.
	if err := wa.Append(ctx, late, 4); !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("the old holder's append after healing: %v, want ErrFenced", err)
	}
	if err := wb.Append(ctx, []byte(`{"seq":5,"by":"b"}`), 5); err != nil {
		t.Fatal(err)
	}
	got := replayAll(t, ctx, b, "r")
	var lines []string
	for _, e := range got {
		lines = append(lines, string(e.Line))
	}
	want := fmt.Sprint([]string{`{"seq":1,"by":"a"}`, `{"seq":2,"by":"a"}`, `{"seq":3,"by":"a"}`, `{"seq":4,"by":"b"}`, `{"seq":5,"by":"b"}`})
	if fmt.Sprint(lines) != want {
		t.Fatalf("journal after healing = %v, want %v", lines, want)
	}
}

// acquireEventually takes key once its holder's lease has expired,
// retrying through a leader election.
func acquireEventually(t *testing.T, ctx context.Context, c *cluster.Cluster, key string) *cluster.Lease {
	t.Helper()
	for {
		// Each try is bounded: while the majority elects new leaders a
		// request may get no answer at all.
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		l, err := c.Acquire(actx, key, cluster.Holder{Host: "b"})
		cancel()
		if err == nil {
			t.Cleanup(func() { _ = l.Release(context.Background()) })
			return l
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the majority never took the lease over: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// openEventually opens run's journal on the majority side, retrying
// while its stream elects a new leader.
func openEventually(t *testing.T, ctx context.Context, c *cluster.Cluster, run string, epoch uint64) *cluster.JournalWriter {
	t.Helper()
	for {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		w, err := c.OpenJournal(actx, run, epoch)
		cancel()
		if err == nil {
			return w
		}
		select {
		case <-ctx.Done():
			t.Fatalf("open the journal on the majority side: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
