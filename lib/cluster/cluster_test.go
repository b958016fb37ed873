package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/nats-io/nats.go"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestJournalAppendReplayAndChain(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	w, err := c.OpenJournal(ctx, "r1", 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := w.Append(ctx, []byte(fmt.Sprintf(`{"seq":%d}`, i)), i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(ctx, []byte(`{"seq":9}`), 9); err == nil {
		t.Fatal("a seq that skips ahead was mirrored")
	}
	var got []cluster.Entry
	if err := c.Replay(ctx, "r1", false, func(e cluster.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Seq != 3 || got[2].Epoch != 7 || string(got[0].Line) != `{"seq":1}` {
		t.Fatalf("replayed %+v", got)
	}
	if got[1].Prev != cluster.LineHash(got[0].Line) {
		t.Fatalf("line 2's prev %q is not line 1's hash", got[1].Prev)
	}
	// A reopened writer continues after the last line.
	w2, err := c.OpenJournal(ctx, "r1", 8)
	if err != nil || w2.LastSeq() != 3 {
		t.Fatalf("reopen: last %d, %v", w2.LastSeq(), err)
	}
	if err := c.Replay(ctx, "nobody", false, func(cluster.Entry) error { return nil }); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("replay of an unknown run: %v", err)
	}
}

func TestJournalFenceRefusesTheOldWriter(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	old, _ := c.OpenJournal(ctx, "r", 1)
	if err := old.Append(ctx, []byte(`{"seq":1}`), 1); err != nil {
		t.Fatal(err)
	}
	next, _ := c.OpenJournal(ctx, "r", 2)
	if err := next.Append(ctx, []byte(`{"seq":2,"by":"new"}`), 2); err != nil {
		t.Fatal(err)
	}
	err := old.Append(ctx, []byte(`{"seq":2,"by":"old"}`), 2)
	if !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("the old writer's append: %v, want ErrFenced", err)
	}
	n := 0
	_ = c.Replay(ctx, "r", false, func(e cluster.Entry) error { n++; return nil })
	if n != 2 {
		t.Fatalf("%d lines mirrored, want 2", n)
	}
}

func TestJournalRetryOfALandedAppendIsNotFenced(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	a, _ := c.OpenJournal(ctx, "r", 1)
	b, _ := c.OpenJournal(ctx, "r", 1) // the same writer, its first answer lost
	line := []byte(`{"seq":1}`)
	if err := a.Append(ctx, line, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, line, 1); err != nil {
		t.Fatalf("the retry of a stored line: %v", err)
	}
}

func TestChainDetectsForks(t *testing.T) {
	l1 := cluster.Entry{Line: []byte("a"), Seq: 1, Epoch: 2}
	ok := cluster.Entry{Line: []byte("b"), Seq: 2, Epoch: 2, Prev: cluster.LineHash([]byte("a"))}
	if err := cluster.Chain(&l1, ok); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]cluster.Entry{
		"hole":  {Seq: 3, Epoch: 2, Prev: ok.Prev},
		"fork":  {Seq: 2, Epoch: 2, Prev: "0000"},
		"older": {Seq: 2, Epoch: 1, Prev: ok.Prev},
	} {
		if err := cluster.Chain(&l1, e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := cluster.Chain(nil, cluster.Entry{Seq: 2}); err == nil {
		t.Error("a journal starting at seq 2 was accepted")
	}
}

func TestReplayFollowSeesNewLines(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	w, _ := c.OpenJournal(ctx, "f", 1)
	_ = w.Append(ctx, []byte("1"), 1)
	got := make(chan int, 4)
	done := make(chan error, 1)
	go func() {
		done <- c.Replay(ctx, "f", true, func(e cluster.Entry) error {
			got <- e.Seq
			if e.Seq == 3 {
				return cluster.ErrStop
			}
			return nil
		})
	}()
	if s := <-got; s != 1 {
		t.Fatalf("first %d", s)
	}
	_ = w.Append(ctx, []byte("2"), 2)
	_ = w.Append(ctx, []byte("3"), 3)
	if a, b := <-got, <-got; a != 2 || b != 3 {
		t.Fatalf("followed %d %d", a, b)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLeaseHeldRenewedAndTakenAfterExpiry(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 1500 * time.Millisecond})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	l, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var held *cluster.HeldError
	if _, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "b"}); !errors.As(err, &held) || held.Holder.Host != "a" {
		t.Fatalf("second acquire: %v", err)
	}
	// The same host and pid in the same second is another acquisition
	// too, not the first one's lost answer.
	if _, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "a"}); !errors.As(err, &held) {
		t.Fatalf("a second acquire by the same holder: %v", err)
	}
	// Renewals keep it past several TTLs: poll the holder twice the TTL.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "b"}); err == nil {
			t.Fatal("a renewed lease was acquired by another holder")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if l.Err() != nil {
		t.Fatalf("held lease lost: %v", l.Err())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l2, err := c.Acquire(ctx, cluster.LeaseKey("r"), cluster.Holder{Host: "b"})
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if l2.Epoch() <= l.Epoch() {
		t.Fatalf("epoch %d after %d", l2.Epoch(), l.Epoch())
	}
	_ = l2.Release(ctx)
}

func TestLeaseExpiresWhenItsHolderStops(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: time.Second})
	c := clustertest.Connect(t, one.URL)
	holderConn := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	l, err := holderConn.Acquire(ctx, cluster.LeaseKey("x"), cluster.Holder{Host: "a"})
	if err != nil {
		t.Fatal(err)
	}
	holderConn.NC.Close() // the holder is cut off: its renewals fail
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("a holder that could not renew did not give its lease up")
	}
	var l2 *cluster.Lease
	for i := 0; i < 300 && l2 == nil; i++ {
		l2, err = c.Acquire(ctx, cluster.LeaseKey("x"), cluster.Holder{Host: "b"})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if l2 == nil {
		t.Fatalf("the lease never expired: %v", err)
	}
	_ = l2.Release(ctx)
}

func TestRunsSendAndControl(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	if _, err := c.GetRun(ctx, "r"); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("missing run: %v", err)
	}
	if err := c.PutRun(ctx, "r", []byte(`{"status":"RUNNING"}`)); err != nil {
		t.Fatal(err)
	}
	if b, err := c.GetRun(ctx, "r"); err != nil || string(b) != `{"status":"RUNNING"}` {
		t.Fatalf("%s %v", b, err)
	}
	if ids, err := c.Runs(ctx); err != nil || len(ids) != 1 || ids[0] != "r" {
		t.Fatalf("runs %v %v", ids, err)
	}
	for i := 0; i < 2; i++ { // a retried send is one message
		if err := c.Send(ctx, "r", "m1", []byte("hi")); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := c.JS.Stream(ctx, cluster.InboxStream)
	info, _ := st.Info(ctx)
	if info.State.Msgs != 1 {
		t.Fatalf("%d inbox messages, want 1", info.State.Msgs)
	}
	if _, err := c.Control(ctx, "r", cluster.ControlRequest{Op: "stop"}, time.Second); !errors.Is(err, cluster.ErrNoHolder) {
		t.Fatalf("stop with no holder: %v", err)
	}
	var mu sync.Mutex
	var ops []string
	sub, _ := c.NC.Subscribe(cluster.ControlSubject("r"), func(m *nats.Msg) {
		mu.Lock()
		ops = append(ops, string(m.Data))
		mu.Unlock()
		_ = m.Respond([]byte(`{"ok":true,"host":"h"}`))
	})
	defer sub.Unsubscribe()
	rep, err := c.Control(ctx, "r", cluster.ControlRequest{Op: "stop"}, 10*time.Second)
	if err != nil || !rep.OK || rep.Host != "h" {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestInitIsIdempotentAndCheckName(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	if err := c.Init(ctxT(t), cluster.Settings{}); err != nil {
		t.Fatalf("second init: %v", err)
	}
	for _, bad := range []string{"", "a..b", ".a", "a.", "a b", "a*"} {
		if cluster.CheckName("run id", bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := cluster.CheckName("run id", "batch1.task-2_a"); err != nil {
		t.Error(err)
	}
}
