package contextgen

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// journalOf numbers events like the engine does.
func journalOf(events ...journal.Event) []journal.Event {
	for i := range events {
		events[i].Seq = int64(i + 1)
	}
	return events
}

func user(s string) journal.Event { return journal.Event{Type: journal.UserMessage, Content: s} }
func thought(text string, calls ...llm.ToolCall) journal.Event {
	return journal.Event{Type: journal.Thought, Content: text, ToolCalls: calls}
}
func call(id, name string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Arguments: "{}"} }
func result(id, name, obs string) journal.Event {
	return journal.Event{Type: journal.ActionResult, CallID: id, ToolName: name, ObservationContent: obs}
}

func TestConversation(t *testing.T) {
	tests := []struct {
		name   string
		events []journal.Event
		max    int
		want   []llm.Message
	}{
		{
			name:   "empty journal",
			events: nil,
			want:   nil,
		},
		{
			name: "task, tool call, answer",
			events: journalOf(
				journal.Event{Type: journal.EngineStart, RunID: "r"},
				user("list files"),
				thought("I will list", call("c1", "ls")),
				journal.Event{Type: journal.ActionRequest, CallID: "c1", ToolName: "ls"},
				result("c1", "ls", "a.txt"),
				thought("done"),
			),
			want: []llm.Message{
				{Role: "user", Content: "list files"},
				{Role: "assistant", Content: "I will list", ToolCalls: []llm.ToolCall{call("c1", "ls")}},
				{Role: "tool", Content: "a.txt", ToolCallID: "c1"},
				{Role: "assistant", Content: "done"},
			},
		},
		{
			// Results journaled after a later THOUGHT go to their own
			// iteration; an id used twice answers the latest call with it.
			name: "late results of an older iteration, an id reused",
			events: journalOf(
				thought("one", call("a", "x"), call("b", "y")),
				result("a", "x", "A"),
				thought("two", call("c", "z")),
				result("c", "z", "C"),
				result("b", "y", "B"),
				thought("three", call("a", "x")),
				result("a", "x", "A3"),
			),
			want: []llm.Message{
				{Role: "assistant", Content: "one", ToolCalls: []llm.ToolCall{call("a", "x"), call("b", "y")}},
				{Role: "tool", Content: "A", ToolCallID: "a"},
				{Role: "tool", Content: "B", ToolCallID: "b"},
				{Role: "assistant", Content: "two", ToolCalls: []llm.ToolCall{call("c", "z")}},
				{Role: "tool", Content: "C", ToolCallID: "c"},
				{Role: "assistant", Content: "three", ToolCalls: []llm.ToolCall{call("a", "x")}},
				{Role: "tool", Content: "A3", ToolCallID: "a"},
			},
		},
		{
			name: "results in the order of the calls, notice after them",
			events: journalOf(
				user("t"),
				thought("", call("a", "x"), call("b", "y")),
				result("b", "y", "B"),
				journal.Event{Type: journal.SystemMessage, Content: "loop detected"},
				result("a", "x", "A"),
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("a", "x"), call("b", "y")}},
				{Role: "tool", Content: "A", ToolCallID: "a"},
				{Role: "tool", Content: "B", ToolCallID: "b"},
				{Role: "user", Content: SystemNotePrefix + "loop detected"},
			},
		},
		{
			name: "a failed call's result says so",
			events: journalOf(
				user("t"),
				thought("", call("a", "x"), call("b", "y")),
				journal.Event{Type: journal.ActionResult, CallID: "a", ToolName: "x", ObservationContent: "exit 2", IsError: true},
				result("b", "y", "B"),
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("a", "x"), call("b", "y")}},
				{Role: "tool", Content: "exit 2", ToolCallID: "a", IsError: true},
				{Role: "tool", Content: "B", ToolCallID: "b"},
			},
		},
		{
			name: "crash between thought and result",
			events: journalOf(
				user("t"),
				thought("", call("a", "x")),
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("a", "x")}},
				{Role: "tool", Content: engine.InterruptedCallObservation, ToolCallID: "a", IsError: true},
			},
		},
		{
			name: "orphan and duplicate results dropped",
			events: journalOf(
				user("t"),
				result("zz", "x", "orphan"),
				thought("", call("a", "x")),
				result("a", "x", "first"),
				result("a", "x", "second"),
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("a", "x")}},
				{Role: "tool", Content: "first", ToolCallID: "a"},
			},
		},
		{
			name: "human input is the ask_human result; received event only a fallback",
			events: journalOf(
				user("t"),
				thought("", call("h", "ask_human")),
				journal.Event{Type: journal.HumanInputRequest, CallID: "h", Prompt: "key?"},
				journal.Event{Type: journal.HumanInputReceived, CallID: "h", Response: "from received"},
				result("h", "ask_human", "sk-1"),
				thought("", call("h2", "ask_human")),
				journal.Event{Type: journal.HumanInputReceived, CallID: "h2", Response: "only received"},
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("h", "ask_human")}},
				{Role: "tool", Content: "sk-1", ToolCallID: "h"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("h2", "ask_human")}},
				{Role: "tool", Content: "only received", ToolCallID: "h2"},
			},
		},
		{
			name: "max_iterations keeps every user message",
			events: journalOf(
				user("task"),
				thought("1", call("a", "x")), result("a", "x", "A"),
				thought("2", call("b", "x")), result("b", "x", "B"),
				user("continue please"),
				thought("3", call("c", "x")), result("c", "x", "C"),
			),
			max: 1,
			want: []llm.Message{
				{Role: "user", Content: "task"},
				{Role: "user", Content: "continue please"},
				{Role: "assistant", Content: "3", ToolCalls: []llm.ToolCall{call("c", "x")}},
				{Role: "tool", Content: "C", ToolCallID: "c"},
			},
		},
		{
			name: "result without call_id matched by tool name",
			events: journalOf(
				user("t"),
				thought("", call("a", "x"), call("b", "y")),
				result("", "y", "Y"),
				result("", "x", "X"),
			),
			want: []llm.Message{
				{Role: "user", Content: "t"},
				{Role: "assistant", ToolCalls: []llm.ToolCall{call("a", "x"), call("b", "y")}},
				{Role: "tool", Content: "X", ToolCallID: "a"},
				{Role: "tool", Content: "Y", ToolCallID: "b"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Conversation(tt.events, tt.max)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Conversation() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// randomJournal is a journal as a run (possibly crashed, resumed, asking a
// human) could leave it, and the user messages it holds.
func randomJournal(r *rand.Rand) ([]journal.Event, []string) {
	events := []journal.Event{{Type: journal.EngineStart}}
	var users []string
	var pending []llm.ToolCall
	n := r.IntN(40)
	for i := 0; i < n; i++ {
		switch r.IntN(6) {
		case 0:
			u := fmt.Sprintf("user %d", i)
			users = append(users, u)
			events = append(events, user(u))
		case 1, 2:
			var calls []llm.ToolCall
			for j := range r.IntN(4) {
				id := fmt.Sprintf("c%d_%d", i, j)
				if r.IntN(10) == 0 {
					id = fmt.Sprintf("call_%d", j) // providers that reuse ids
				}
				calls = append(calls, call(id, []string{"ls", "ask_human", "cat"}[r.IntN(3)]))
			}
			events = append(events, thought(fmt.Sprintf("thought %d", i), calls...))
			pending = append(pending, calls...)
		case 3:
			if len(pending) > 0 {
				k := r.IntN(len(pending))
				c := pending[k]
				pending = append(pending[:k], pending[k+1:]...)
				if c.Name == "ask_human" && r.IntN(2) == 0 {
					events = append(events, journal.Event{Type: journal.HumanInputReceived, CallID: c.ID, Response: "yes"})
				}
				if r.IntN(8) > 0 { // sometimes the result is lost (crash)
					events = append(events, result(c.ID, c.Name, "out"))
				}
			}
		case 4:
			events = append(events, journal.Event{Type: journal.SystemMessage, Content: "notice"})
		case 5:
			events = append(events, result(fmt.Sprintf("orphan%d", i), "ls", "?"))
		}
	}
	return journalOf(events...), users
}

// validConversation reports why msgs is not a valid OpenAI conversation:
// every tool message answers a call of the assistant message before the
// run of tool messages it is in, and every call is answered there.
func validConversation(msgs []llm.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == llm.RoleTool:
			return fmt.Errorf("message %d: tool message %q answers no preceding tool call", i, m.ToolCallID)
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0:
			open := map[string]int{}
			for _, tc := range m.ToolCalls {
				open[tc.ID]++
			}
			j := i + 1
			for ; j < len(msgs) && msgs[j].Role == llm.RoleTool; j++ {
				id := msgs[j].ToolCallID
				if open[id] == 0 {
					return fmt.Errorf("message %d: tool message %q answers no call of message %d", j, id, i)
				}
				open[id]--
			}
			for id, n := range open {
				if n > 0 {
					return fmt.Errorf("message %d: tool call %q unanswered", i, id)
				}
			}
			i = j - 1
		}
	}
	return nil
}

func TestConversationProperty(t *testing.T) {
	for seed := range uint64(2000) {
		r := rand.New(rand.NewPCG(seed, 7))
		events, users := randomJournal(r)
		max := r.IntN(6)
		got := Conversation(events, max)
		if err := validConversation(got); err != nil {
			t.Fatalf("seed %d, max_iterations %d: %v\n%+v", seed, max, err, got)
		}
		var gotUsers []string
		for _, m := range got {
			if m.Role == llm.RoleUser && !isNotice(m) {
				gotUsers = append(gotUsers, m.Content)
			}
		}
		if diff := cmp.Diff(users, gotUsers); diff != "" {
			t.Fatalf("seed %d, max_iterations %d: user messages (-want +got):\n%s", seed, max, diff)
		}
		if max > 0 {
			if n := assistants(got); n > max {
				t.Fatalf("seed %d: %d assistant messages kept, max_iterations %d", seed, n, max)
			}
		}
	}
}

func isNotice(m llm.Message) bool {
	return len(m.Content) >= len(SystemNotePrefix) && m.Content[:len(SystemNotePrefix)] == SystemNotePrefix
}

func assistants(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

// A run waiting for an ask_human answer shows the question as pending; once
// the run went on (it was resumed, or stopped otherwise), an unanswered
// call is the interrupted one.
func TestConversationPendingQuestion(t *testing.T) {
	ask := journal.Event{Type: journal.HumanInputRequest, CallID: "c1", Prompt: "Which environment?"}
	waitingEnd := journal.Event{Type: journal.EngineEnd, Status: "WAITING_FOR_INPUT"}
	base := []journal.Event{user("deploy"), thought("", call("c1", "ask_human")), ask}
	tests := []struct {
		name   string
		events []journal.Event
		want   string
	}{
		{"waiting", journalOf(append(append([]journal.Event{}, base...), waitingEnd)...), PendingQuestionPrefix + "Which environment?"},
		{"resumed", journalOf(append(append([]journal.Event{}, base...), waitingEnd, journal.Event{Type: journal.EngineStart})...), engine.InterruptedCallObservation},
		{"killed while asking", journalOf(base...), engine.InterruptedCallObservation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := Conversation(tt.events, 0)
			if got := msgs[len(msgs)-1].Content; got != tt.want {
				t.Errorf("Conversation() tool message = %q, want %q", got, tt.want)
			}
		})
	}
}
