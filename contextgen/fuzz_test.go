package contextgen

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/google/go-cmp/cmp"
)

// FuzzJournal feeds arbitrary journal lines (a journal is an untrusted
// file: edited by hand, torn by a crash, written by another version)
// through rebuilding, and checks that whatever parses becomes a valid
// conversation however it is windowed or budgeted.
func FuzzJournal(f *testing.F) {
	f.Add([]byte(`{"type":"USER_MESSAGE","seq":1,"content":"hi"}` + "\n"))
	f.Add([]byte(`{"type":"THOUGHT","seq":1,"tool_calls":[{"id":"a","name":"x","arguments":"{}"}]}` + "\n" +
		`{"type":"ACTION_RESULT","seq":2,"call_id":"a","observation_content":"ok"}` + "\n" +
		`{"type":"ACTION_RESULT","seq":3,"call_id":"zz"}` + "\n" + `{"type":"THO`))
	f.Add([]byte(`{"type":"THOUGHT","tool_calls":[{"id":"","name":"x"},{"id":"","name":"x"}]}` + "\n" +
		`{"type":"ACTION_RESULT","tool_name":"x"}` + "\n" + `{"type":"SYSTEM_MESSAGE","content":"n"}` + "\n"))
	f.Add([]byte("not json\n{}\n"))
	// A question answered after the run waited for it, results arriving
	// late and out of order, a result without call_id, a duplicate result.
	f.Add([]byte(`{"type":"USER_MESSAGE","seq":1,"content":"go"}` + "\n" +
		`{"type":"THOUGHT","seq":2,"tool_calls":[{"id":"q","name":"ask_human","arguments":"{}"},{"id":"b","name":"x"}]}` + "\n" +
		`{"type":"ACTION_RESULT","seq":3,"call_id":"b","observation_content":"B"}` + "\n" +
		`{"type":"HUMAN_INPUT_REQUEST","seq":4,"call_id":"q","prompt":"which?"}` + "\n" +
		`{"type":"ENGINE_END","seq":5,"status":"WAITING_FOR_INPUT"}` + "\n" +
		`{"type":"HUMAN_INPUT_RECEIVED","seq":6,"call_id":"q","response":"this"}` + "\n" +
		`{"type":"THOUGHT","seq":7,"tool_calls":[{"id":"","name":"y"},{"id":"c","name":"y"}]}` + "\n" +
		`{"type":"ACTION_RESULT","seq":8,"tool_name":"y","observation_content":"Y1"}` + "\n" +
		`{"type":"SYSTEM_MESSAGE","seq":9,"content":"note"}` + "\n" +
		`{"type":"ACTION_RESULT","seq":10,"call_id":"q","observation_content":"late"}` + "\n" +
		`{"type":"ACTION_RESULT","seq":11,"call_id":"c","observation_content":"C"}` + "\n" +
		`{"type":"ACTION_RESULT","seq":12,"call_id":"c","observation_content":"again"}` + "\n" +
		`{"type":"THOUGHT","seq":13,"content":"done"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var events []journal.Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			if ev, err := journal.ParseLine(line); err == nil {
				events = append(events, ev)
			}
		}
		for _, max := range []int{0, 1, 3} {
			if err := validConversation(Conversation(events, max)); err != nil {
				t.Fatalf("max_iterations %d: %v", max, err)
			}
			p := journalSource(rebuild(events), agent.ContextSource{MaxIterations: max, MaxTokens: 5})
			if err := validConversation(p.Messages); err != nil {
				t.Fatalf("max_tokens 5, max_iterations %d: %v", max, err)
			}
		}
		checkIncremental(t, events)
	})
}

// checkIncremental builds the conversation of every prefix of events with
// one Builder, as the engine does while a run appends to its journal, and
// fails when one differs from rebuilding that prefix from scratch.
func checkIncremental(t *testing.T, events []journal.Event) {
	t.Helper()
	b := New()
	grown := make([]journal.Event, 0, len(events))
	for k := range events {
		grown = append(grown, events[k]) // the same backing array throughout
		got, want := b.conversationOf(grown, ""), rebuild(grown)
		for _, src := range []agent.ContextSource{{}, {MaxIterations: 2}, {MaxTokens: 20}} {
			if diff := cmp.Diff(journalSource(want, src), journalSource(got, src)); diff != "" {
				t.Fatalf("after %d events, source %+v: extended conversation differs from a rebuild (-rebuild +extended):\n%s", k+1, src, diff)
			}
		}
	}
}
