package contextgen

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
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
			p := journalSource(events, agent.ContextSource{MaxIterations: max, MaxTokens: 5})
			if err := validConversation(p.Messages); err != nil {
				t.Fatalf("max_tokens 5, max_iterations %d: %v", max, err)
			}
		}
	})
}
