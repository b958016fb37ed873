package contextgen

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
)

// streamed is the journal source of events built through a Stream, each
// event handed over in one reused Event, as journal.Scan does.
func streamed(events []journal.Event, src agent.ContextSource) Part {
	s := NewStream()
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
