package contextgen

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
)

// streamed is the journal source of events built through a Stream, each
// event handed over in one reused Event, as journal.Scan does.
func streamed(events []journal.Event, src agent.ContextSource) Part {
	s := NewStream("")
	var ev journal.Event
	for i := range events {
		ev = events[i]
		s.Add(&ev)
		ev = journal.Event{Type: "CLOBBERED", Content: "reused"} // the caller may reuse it
	}
	return journalSource(s.conversation(), src)
}

// A Stream gives the conversation rebuild gives, whatever the journal and
// the source's limits, a run waiting for a human's answer included.
func TestStreamIsRebuild(t *testing.T) {
	check := func(name string, events []journal.Event, src agent.ContextSource) {
		t.Helper()
		want := journalSource(rebuild(events), src)
		if diff := cmp.Diff(want, streamed(events, src)); diff != "" {
			t.Fatalf("%s: streamed part (-rebuilt +streamed):\n%s", name, diff)
		}
	}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 11))
		events, _ := randomJournal(r)
		check("random journal", events, agent.ContextSource{Type: agent.SourceJournal, MaxIterations: r.IntN(4), MaxTokens: r.IntN(3) * 40})
	}
	ask := journal.Event{Type: journal.HumanInputRequest, CallID: "c1", Prompt: "Which environment?"}
	waiting := journalOf(user("deploy"), thought("", call("c1", "ask_human")), ask, journal.Event{Type: journal.EngineEnd, Status: "WAITING_FOR_INPUT"})
	check("waiting", waiting, agent.ContextSource{Type: agent.SourceJournal})
	check("empty", nil, agent.ContextSource{Type: agent.SourceJournal})
}

// A Stream fed events of which only StreamFields were decoded gives the
// conversation of the whole events: the list names every field it reads.
func TestStreamFieldsSuffice(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 12))
		events, _ := randomJournal(r)
		path := filepath.Join(t.TempDir(), "journal.jsonl")
		w, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range events {
			if _, err := w.Write(&events[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		full, err := journal.ReadFile(path) // as written: seq and timestamps set
		if err != nil {
			t.Fatal(err)
		}
		s := NewStream("")
		if err := journal.ScanFields(path, StreamFields(), func(ev *journal.Event) error { s.Add(ev); return nil }); err != nil {
			t.Fatal(err)
		}
		src := agent.ContextSource{Type: agent.SourceJournal, MaxIterations: r.IntN(4), MaxTokens: r.IntN(3) * 40}
		if diff := cmp.Diff(journalSource(rebuild(full), src), journalSource(s.conversation(), src)); diff != "" {
			t.Fatalf("seed %d: part (-all fields +StreamFields):\n%s", seed, diff)
		}
	}
}

// A Builder with Pieces gives a journal source's messages in pieces that
// join to the Messages it gives without, with the same token estimate
// (rounded once, over all of them), whatever the journal and the limits.
func TestPiecesJoinToMessages(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 13))
		events, _ := randomJournal(r)
		run := testRun(t, events, agent.ContextSource{Type: agent.SourceJournal, MaxIterations: r.IntN(4), MaxTokens: r.IntN(3) * 40})
		want, err := New().BuildParts(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		got, err := (&Builder{Pieces: true}).BuildParts(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want[0], got[0]
		if g.Messages != nil || g.Len() != len(w.Messages) || g.Tokens != w.Tokens || g.Truncated != w.Truncated {
			t.Fatalf("seed %d: pieces part has Messages %v, %d messages, %d tokens, truncated %v; want nil, %d, %d, %v",
				seed, g.Messages, g.Len(), g.Tokens, g.Truncated, len(w.Messages), w.Tokens, w.Truncated)
		}
		if diff := cmp.Diff(w.Messages, g.All()); diff != "" {
			t.Fatalf("seed %d: joined pieces (-Messages +pieces):\n%s", seed, diff)
		}
		if len(w.Messages) > 0 && len(g.Pieces) == 0 {
			t.Fatalf("seed %d: no pieces for %d messages", seed, len(w.Messages))
		}
	}
}
