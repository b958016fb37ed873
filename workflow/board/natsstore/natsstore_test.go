package natsstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/boardtest"
	"github.com/deltakit/delta/workflow/board/natsstore"
)

var bg = context.Background()

// TestTable: the cluster store passes the table the file and memory
// stores pass, each test on an instance of its own.
func TestTable(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	n := 0
	boardtest.Run(t, func(t *testing.T, cfg board.Config) board.Provider {
		n++
		p, err := natsstore.Open(bg, c, fmt.Sprintf("table%d", n), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}

// TestSharedAcrossConnections: two connections (two hosts, as far as the
// cluster can tell) see one channel, one set of cursors, one owner's
// documents; appends from both never share a seq, and votes cast at once
// from both resolve a proposal exactly once.
func TestSharedAcrossConnections(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	cfg := board.Config{Agents: []string{"a", "b", "c"}, DocumentOwner: "a"}
	pa, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "shared", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "shared", board.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	if got := pb.Config().DocumentOwner; got != "a" {
		t.Fatalf("the second opener read the saved configuration's owner as %q, want a", got)
	}

	const each = 20
	var wg sync.WaitGroup
	for _, p := range []board.Provider{pa, pb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := p.Append(bg, "a", fmt.Sprintf("@b %d", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	entries, err := pb.Read(bg, board.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2*each {
		t.Fatalf("%d entries, want %d", len(entries), 2*each)
	}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d: seqs must be 1..n", i, e.Seq)
		}
	}

	if err := pa.Ack(bg, "b", 10); err != nil {
		t.Fatal(err)
	}
	if cur, err := pb.Cursor(bg, "b"); err != nil || cur != 10 {
		t.Fatalf("b's cursor seen from the other connection: %d, %v; want 10", cur, err)
	}
	if err := pb.Ack(bg, "b", 5); err != nil {
		t.Fatal(err)
	}
	if cur, _ := pa.Cursor(bg, "b"); cur != 10 {
		t.Fatalf("b's cursor moved back to %d", cur)
	}

	if err := pa.WriteDocument(bg, "a", "plan.md", "# plan\n"); err != nil {
		t.Fatal(err)
	}
	if err := pb.WriteDocument(bg, "b", "plan.md", "mine"); !errors.Is(err, board.ErrNotOwner) {
		t.Fatalf("a non-owner's write: %v, want ErrNotOwner", err)
	}
	if got, err := pb.ReadDocument(bg, "plan.md"); err != nil || got != "# plan\n" {
		t.Fatalf("the document from the other connection: %q, %v", got, err)
	}
}

// TestConcurrentVotes: three agents vote at once, from two connections,
// on a decision a majority resolves: it resolves once, announced once.
func TestConcurrentVotes(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	cfg := board.Config{Agents: []string{"a", "b", "c"}}
	pa, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "votes", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "votes", board.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	if _, err := pa.CreateProposal(bg, "a", board.ProposalSpec{Type: board.Decision, Title: "Ship?",
		Options: []board.Option{{ID: "yes"}, {ID: "no"}}, Resolution: board.Resolution{Type: board.Majority}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, voter := range []string{"a", "b", "c"} {
		p := []board.Provider{pa, pb}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Vote(bg, voter, "p1", "yes", ""); err != nil && !errors.Is(err, board.ErrNotActive) {
				t.Error(voter, err)
			}
		}()
	}
	wg.Wait()
	pr, err := pb.Proposal(bg, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if pr.Status != board.StatusResolved || pr.Result.Winner != "yes" {
		t.Fatalf("proposal after the votes: %+v", pr)
	}
	entries, _ := pa.Read(bg, board.ReadOptions{})
	resolved := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Message, "[RESOLVED:p1]") {
			resolved++
		}
	}
	if resolved != 1 {
		t.Fatalf("p1 announced resolved %d times, want once", resolved)
	}
}

// TestOpenUnknown: opening an instance nobody created says so.
func TestOpenUnknown(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	_, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "nobody", board.Config{})
	if !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("open of a missing instance: %v, want ErrNotFound", err)
	}
	if _, err := natsstore.Open(bg, clustertest.Connect(t, one.URL), "bad.name", board.Config{Agents: []string{"a"}}); err == nil {
		t.Fatal("an instance name with a dot was accepted")
	}
}

// TestOtherWorkflowRefused: creating an instance that exists resumes it
// when its configuration is the same, and is refused when it is another
// workflow's (other agents): the board is never taken over.
func TestOtherWorkflowRefused(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	mine := board.Config{Agents: []string{"a", "b"}, DocumentOwner: "a"}
	p, err := natsstore.Open(bg, c, "shared", mine)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Append(bg, "a", "@b hello"); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := natsstore.Open(bg, c, "shared", board.Config{Agents: []string{"x"}}); !errors.Is(err, natsstore.ErrOtherWorkflow) {
		t.Fatalf("another workflow's create: %v, want ErrOtherWorkflow", err)
	}
	p, err = natsstore.Open(bg, c, "shared", mine)
	if err != nil {
		t.Fatalf("resuming with the same configuration: %v", err)
	}
	defer p.Close()
	if got := p.Config().Agents; len(got) != 2 {
		t.Fatalf("agents after the refused create: %v", got)
	}
	if last, _ := p.LastSeq(bg); last != 1 {
		t.Fatalf("the channel after the refused create has %d entries, want 1", last)
	}
}
