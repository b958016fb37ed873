package boardtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/workflow/board"
	"github.com/google/go-cmp/cmp"
)

// The proposal tests of the table: elections, decisions, assignments.

func testElectionByVotes(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"reviewer", "coder", "scribe"}}, func(t *testing.T, p board.Provider, c *clock) {
		tools := board.NewTools(p)
		el, ok, err := p.StartOwnerElection(bg, 30*time.Second)
		if err != nil || !ok {
			t.Fatalf("StartOwnerElection = %v, %v", ok, err)
		}
		if el.ID != "doc-owner-1" || len(el.Options) != 3 || el.Options[2] != (board.Option{ID: "scribe", Label: "@scribe"}) {
			t.Fatalf("election = %+v", el)
		}
		again, ok, _ := p.StartOwnerElection(bg, 30*time.Second)
		if !ok || again.ID != el.ID {
			t.Errorf("second StartOwnerElection = %s, want the open %s", again.ID, el.ID)
		}
		ann := must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{}))
		if len(ann) != 1 || !strings.HasPrefix(ann[0].Message, "[PROPOSAL:doc-owner-1] Document Owner Election\n@reviewer @coder @scribe\n") || len(ann[0].Mentions) != 3 {
			t.Fatalf("announcement = %+v", ann)
		}
		// Writes wait for the election.
		if err := p.WriteDocument(bg, "coder", "", "x"); !errors.Is(err, board.ErrElection) {
			t.Errorf("write during the election = %v, want board.ErrElection", err)
		}
		if got := must[string](t)(tools.Call(bg, "reviewer", "vote", []byte(`{"proposal":"doc-owner-1","choice":"scribe","reason":"cheap model"}`))); got != "Vote recorded. 1/3 votes received." {
			t.Errorf("vote = %q", got)
		}
		// Idempotent repeat; a change is refused.
		if got := must[string](t)(tools.Call(bg, "reviewer", "vote", []byte(`{"proposal":"doc-owner-1","choice":"scribe"}`))); got != `Vote already recorded for "@scribe".` {
			t.Errorf("repeated vote = %q", got)
		}
		if _, err := tools.Call(bg, "reviewer", "vote", []byte(`{"proposal":"doc-owner-1","choice":"coder"}`)); !errors.Is(err, board.ErrVoteChanged) || err.Error() != `You already voted for "@scribe". Votes cannot be changed.` {
			t.Errorf("changed vote = %v", err)
		}
		if _, err := tools.Call(bg, "coder", "vote", []byte(`{"proposal":"doc-owner-1","choice":"nobody"}`)); err == nil || err.Error() != "Invalid option. Valid: reviewer, coder, scribe" {
			t.Errorf("invalid option = %v", err)
		}
		if _, err := tools.Call(bg, "coder", "vote", []byte(`{"proposal":"p9","choice":"x"}`)); !errors.Is(err, board.ErrNotFound) || err.Error() != "Proposal p9 not found" {
			t.Errorf("unknown proposal = %v", err)
		}
		must[string](t)(tools.Call(bg, "coder", "vote", []byte(`{"proposal":"doc-owner-1","choice":"scribe"}`)))
		got := must[string](t)(tools.Call(bg, "scribe", "vote", []byte(`{"proposal":"doc-owner-1","choice":"coder"}`)))
		if got != "Vote recorded. 3/3 votes received. Resolved: scribe." {
			t.Errorf("deciding vote = %q", got)
		}
		pr := must[board.Proposal](t)(p.Proposal(bg, "doc-owner-1"))
		if pr.Status != board.StatusResolved || pr.Result.Winner != "scribe" || pr.Result.ResolvedBy != "votes" || !cmp.Equal(pr.Result.Counts, map[string]int{"scribe": 2, "coder": 1}) {
			t.Errorf("resolved election = %+v", pr)
		}
		if owner := must[string](t)(p.DocumentOwner(bg)); owner != "scribe" {
			t.Errorf("DocumentOwner = %q, want the winner", owner)
		}
		afterElection(t, p, tools)
	})
}

// afterElection checks what the elected owner's election leaves: the
// binding result enforced, no second election, the votes on the channel.
func afterElection(t *testing.T, p board.Provider, tools *board.Tools) {
	t.Helper()
	// The binding result is enforced.
	if err := p.WriteDocument(bg, "coder", "", "x"); !errors.Is(err, board.ErrNotOwner) {
		t.Errorf("coder's write after the election = %v, want board.ErrNotOwner", err)
	}
	if err := p.WriteDocument(bg, "scribe", "", "x"); err != nil {
		t.Errorf("scribe's write after the election = %v", err)
	}
	if _, ok, _ := p.StartOwnerElection(bg, time.Minute); ok {
		t.Error("StartOwnerElection after an owner was elected opened another")
	}
	if _, err := tools.Call(bg, "coder", "vote", []byte(`{"proposal":"doc-owner-1","choice":"coder"}`)); err == nil || err.Error() != "Proposal is resolved" {
		t.Errorf("vote on a resolved proposal = %v", err)
	}
	want := []string{
		"reviewer: [VOTE:doc-owner-1] I vote for \"@scribe\" (cheap model)",
		"coder: [VOTE:doc-owner-1] I vote for \"@scribe\"",
		"scribe: [VOTE:doc-owner-1] I vote for \"@coder\"",
		"system: [RESOLVED:doc-owner-1] Document Owner Election\nResult: @scribe\nVotes: coder=1, scribe=2\n@scribe now owns the documents.",
	}
	if diff := cmp.Diff(want, messages(t, p)[1:]); diff != "" {
		t.Errorf("channel (-want +got):\n%s", diff)
	}
	if active := must[bool](t)(p.ActiveProposals(bg)); active {
		t.Error("ActiveProposals = true after the election resolved")
	}
	// Agents' proposals are numbered p1, p2 … whatever else exists.
	if pr := must[board.Proposal](t)(p.CreateProposal(bg, "coder", board.ProposalSpec{Type: board.Approval, Title: "Merge?"})); pr.ID != "p1" {
		t.Errorf("first agent proposal id = %s, want p1", pr.ID)
	}
}

func testDecisionMajorityAndExpiry(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a", "b", "c"}, DocumentOwner: "a"}, func(t *testing.T, p board.Provider, c *clock) {
		tools := board.NewTools(p)
		out := must[string](t)(tools.Call(bg, "a", "proposal_create", []byte(`{"type":"decision","title":"Authentication Approach",
			"options":[{"id":"jwt","label":"JWT tokens"},{"id":"session","label":"Server sessions"}],
			"resolution":{"type":"majority"},"timeoutSeconds":120}`)))
		if !strings.Contains(out, `"id": "p1"`) || !strings.Contains(out, `"status": "active"`) {
			t.Fatalf("proposal_create = %s", out)
		}
		ann := must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{}))[0]
		if !cmp.Equal(ann.Mentions, []string{"b", "c"}) || !strings.Contains(ann.Message, "Options: jwt (JWT tokens), session (Server sessions)\nVote with: vote({ proposal: 'p1', choice: '<option-id>' })") {
			t.Errorf("announcement = %+v", ann)
		}
		if !must[bool](t)(p.ActiveProposals(bg)) {
			t.Fatal("ActiveProposals = false with p1 open")
		}
		must[board.VoteOutcome](t)(p.Vote(bg, "a", "p1", "jwt", ""))
		must[board.VoteOutcome](t)(p.Vote(bg, "b", "p1", "session", ""))
		// c never votes: at the deadline it resolves with the votes cast,
		// and 1 of 2 is no majority.
		c.advance(119 * time.Second)
		if changed := must[[]board.Proposal](t)(p.Settle(bg)); len(changed) != 0 {
			t.Fatalf("Settle before the deadline changed %v", changed)
		}
		c.advance(time.Second)
		changed := must[[]board.Proposal](t)(p.Settle(bg))
		if len(changed) != 1 || changed[0].Status != board.StatusResolved || changed[0].Result.Winner != "" || changed[0].Result.ResolvedBy != "timeout" {
			t.Fatalf("Settle at the deadline = %+v", changed)
		}
		msgs := messages(t, p)
		if want := "system: [RESOLVED:p1] Authentication Approach\nResult: No winner (tie/no majority)\nVotes: jwt=1, session=1\n(timed out with 2 of 3 votes)\ncc @a"; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}

		// A proposal with no votes expires.
		must[string](t)(tools.Call(bg, "b", "proposal_create", []byte(`{"type":"approval","title":"Ready to merge?","timeoutSeconds":"60"}`)))
		pr := must[board.Proposal](t)(p.Proposal(bg, "p2"))
		if len(pr.Options) != 2 || pr.Options[0] != (board.Option{ID: "yes", Label: "Approve"}) {
			t.Errorf("approval options = %+v", pr.Options)
		}
		c.advance(61 * time.Second)
		if must[bool](t)(p.ActiveProposals(bg)) {
			t.Error("ActiveProposals = true after p2's deadline")
		}
		pr = must[board.Proposal](t)(p.Proposal(bg, "p2"))
		if pr.Status != board.StatusExpired {
			t.Errorf("p2 status = %s, want expired", pr.Status)
		}
		msgs = messages(t, p)
		if want := "system: [EXPIRED:p2] No votes received.\ncc @b"; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}
	})
}

func testAssignmentAndCancel(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a", "b", "c"}, DocumentOwner: "a"}, func(t *testing.T, p board.Provider, c *clock) {
		must[board.Proposal](t)(p.CreateProposal(bg, "a", board.ProposalSpec{Type: board.Assignment, Title: "Code Review Tasks",
			Options: []board.Option{{ID: "auth", Label: "Auth module"}, {ID: "db", Label: "Database"}}}))
		for _, v := range [][2]string{{"a", "auth"}, {"b", "db"}, {"c", "auth"}} {
			must[board.VoteOutcome](t)(p.Vote(bg, v[0], "p1", v[1], ""))
		}
		pr := must[board.Proposal](t)(p.Proposal(bg, "p1"))
		if !cmp.Equal(pr.Result.Assignments, map[string][]string{"auth": {"a", "c"}, "db": {"b"}}) {
			t.Errorf("assignments = %v", pr.Result.Assignments)
		}

		must[board.Proposal](t)(p.CreateProposal(bg, "b", board.ProposalSpec{Type: board.Approval, Title: "Ship it?"}))
		if _, err := p.CancelProposal(bg, "c", "p2", ""); !errors.Is(err, board.ErrNotCreator) {
			t.Errorf("cancel by another agent = %v, want board.ErrNotCreator", err)
		}
		out := must[string](t)(board.NewTools(p).Call(bg, "b", "proposal_cancel", []byte(`{"proposal":"p2","reason":"not needed"}`)))
		if out != "Proposal cancelled" {
			t.Errorf("proposal_cancel = %q", out)
		}
		msgs := messages(t, p)
		if want := "system: [PROPOSAL:p2] Cancelled: not needed"; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}
		if _, err := p.Vote(bg, "a", "p2", "yes", ""); !errors.Is(err, board.ErrNotActive) {
			t.Errorf("vote on a cancelled proposal = %v, want board.ErrNotActive", err)
		}
		status := must[string](t)(board.NewTools(p).Call(bg, "a", "proposal_status", nil))
		if status != "[]" {
			t.Errorf("proposal_status with none active = %s", status)
		}
	})
}

func testOwnerElectionExpires(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a", "b"}}, func(t *testing.T, p board.Provider, c *clock) {
		must[board.Proposal](t)(func() (board.Proposal, error) { pr, _, err := p.StartOwnerElection(bg, 30*time.Second); return pr, err }())
		c.advance(31 * time.Second)
		// No votes: ownership disabled, anyone writes.
		if err := p.WriteDocument(bg, "b", "", "x"); err != nil {
			t.Fatalf("write after the election expired = %v", err)
		}
		msgs := messages(t, p)
		if want := "system: [EXPIRED:doc-owner-1] No votes received. Document ownership disabled."; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}
		if _, ok, _ := p.StartOwnerElection(bg, time.Minute); ok {
			t.Error("a decided (disabled) ownership opened another election")
		}
	})
}

func testAgentOpensOwnerElection(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"reviewer", "coder"}, DocumentOwner: "reviewer"}, func(t *testing.T, p board.Provider, c *clock) {
		tools := board.NewTools(p)
		_, err := tools.Call(bg, "coder", "proposal_create", []byte(`{"type":"election","title":"Lead","options":[{"id":"bob"}],"binding":true}`))
		if err == nil || !strings.Contains(err.Error(), `option "bob": a binding election chooses the document owner, one of the agents (reviewer, coder)`) {
			t.Errorf("binding election of a non-agent = %v", err)
		}
		out := must[string](t)(tools.Call(bg, "coder", "proposal_create", []byte(`{"type":"election","title":"Document Owner Election","binding":true,"timeoutSeconds":30}`)))
		if !strings.Contains(out, `"id": "doc-owner-1"`) {
			t.Fatalf("binding election = %s, want id doc-owner-1", out)
		}
		if _, err := tools.Call(bg, "reviewer", "proposal_create", []byte(`{"type":"election","title":"Again","binding":true}`)); err == nil || !strings.Contains(err.Error(), "A document owner election is already open (doc-owner-1): vote on it") {
			t.Errorf("second binding election = %v", err)
		}
		if out := must[string](t)(tools.Call(bg, "reviewer", "proposal_create", []byte(`{"type":"election","title":"Task lead"}`))); !strings.Contains(out, `"id": "p2"`) && !strings.Contains(out, `"id": "p1"`) {
			t.Errorf("advisory election = %s, want a pN id", out)
		}
		must[string](t)(tools.Call(bg, "reviewer", "vote", []byte(`{"proposal":"doc-owner-1","choice":"coder"}`)))
		must[string](t)(tools.Call(bg, "coder", "vote", []byte(`{"proposal":"doc-owner-1","choice":"coder"}`)))
		if owner := must[string](t)(p.DocumentOwner(bg)); owner != "coder" {
			t.Errorf("owner after the election = %q, want coder", owner)
		}
		if err := p.WriteDocument(bg, "reviewer", "", "x"); !errors.Is(err, board.ErrNotOwner) {
			t.Errorf("write by the former owner = %v, want board.ErrNotOwner", err)
		}
		if err := p.WriteDocument(bg, "coder", "", "x"); err != nil {
			t.Errorf("write by the elected owner = %v", err)
		}
		out = must[string](t)(tools.Call(bg, "coder", "proposal_create", []byte(`{"type":"election","title":"Re-elect","binding":true}`)))
		if !strings.Contains(out, `"id": "doc-owner-2"`) {
			t.Errorf("next binding election = %s, want doc-owner-2", out)
		}
	})
}

func testNonAgentVotes(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a", "b"}, DocumentOwner: "a"}, func(t *testing.T, p board.Provider, c *clock) {
		tools := board.NewTools(p)
		must[board.Proposal](t)(p.CreateProposal(bg, "a", board.ProposalSpec{Type: board.Approval, Title: "Merge?"}))
		out := must[board.VoteOutcome](t)(p.Vote(bg, board.User, "p1", "no", "not yet"))
		if out.Counted || out.Votes != 0 || out.Quorum != 2 {
			t.Errorf("user's vote = counted %v, %d/%d; want not counted, 0/2", out.Counted, out.Votes, out.Quorum)
		}
		got := must[string](t)(tools.Call(bg, "bob", "vote", []byte(`{"proposal":"p1","choice":"no"}`)))
		if want := "Vote recorded; bob is not an agent of the workflow (a, b): it counts in the result, not toward the quorum. 0/2 votes received."; got != want {
			t.Errorf("vote as bob = %q, want %q", got, want)
		}
		pr := must[board.Proposal](t)(p.Proposal(bg, "p1"))
		if pr.Status != board.StatusActive {
			t.Fatalf("after two non-agent votes status = %s, want active", pr.Status)
		}
		if diff := cmp.Diff(map[string]string{board.User: "no", "bob": "no"}, pr.Result.Votes); diff != "" {
			t.Errorf("votes (-want +got):\n%s", diff)
		}
		if got := must[string](t)(tools.Call(bg, "a", "vote", []byte(`{"proposal":"p1","choice":"yes"}`))); got != "Vote recorded. 1/2 votes received." {
			t.Errorf("vote as a = %q", got)
		}
		out = must[board.VoteOutcome](t)(p.Vote(bg, "b", "p1", "yes", ""))
		if !out.Counted || out.Votes != 2 || out.Proposal.Status != board.StatusResolved {
			t.Fatalf("b's vote = %+v, want counted and resolved", out)
		}
		// The result counts every vote: no=2 (user, bob), yes=2 (a, b).
		if diff := cmp.Diff(map[string]int{"yes": 2, "no": 2}, out.Proposal.Result.Counts); diff != "" {
			t.Errorf("counts (-want +got):\n%s", diff)
		}
		msgs := messages(t, p)
		if want := "system: [RESOLVED:p1] Merge?\nResult: No winner (tie/no majority)\nVotes: yes=2, no=2\ncc @a"; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}

		// At the deadline, the agents' votes are what the quorum is told of.
		must[board.Proposal](t)(p.CreateProposal(bg, "a", board.ProposalSpec{Type: board.Approval, Title: "Ship?", Timeout: time.Minute}))
		must[board.VoteOutcome](t)(p.Vote(bg, board.User, "p2", "yes", ""))
		must[board.VoteOutcome](t)(p.Vote(bg, "a", "p2", "yes", ""))
		c.advance(time.Minute)
		must[[]board.Proposal](t)(p.Settle(bg))
		msgs = messages(t, p)
		if want := "system: [RESOLVED:p2] Ship?\nResult: Approve\nVotes: yes=2\n(timed out with 1 of 2 agent votes)\ncc @a"; msgs[len(msgs)-1] != want {
			t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
		}
	})
}
