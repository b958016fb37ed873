package runs

import (
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

func TestFinalAnswer(t *testing.T) {
	thought := func(text string, calls ...string) journal.Event {
		ev := journal.Event{Type: journal.Thought, Content: text}
		for _, c := range calls {
			ev.ToolCalls = append(ev.ToolCalls, llm.ToolCall{ID: c, Name: "t"})
		}
		return ev
	}
	result := journal.Event{Type: journal.ActionResult, CallID: "c1"}
	hook := journal.Event{Type: journal.HookExecution}
	end := func(s Status) journal.Event { return journal.Event{Type: journal.EngineEnd, Status: string(s)} }
	user := journal.Event{Type: journal.UserMessage, Content: "more"}
	for _, c := range []struct {
		name            string
		events          []journal.Event
		final, unended  string
		isFinal, isOpen bool
	}{
		{name: "none", events: nil},
		{name: "answered", events: []journal.Event{thought("a", "c1"), result, thought("done"), end(Completed)},
			final: "done", isFinal: true, unended: "done", isOpen: true},
		{name: "answer then bookkeeping", events: []journal.Event{thought("done"), hook},
			final: "done", isFinal: true, unended: "done", isOpen: true},
		{name: "last asks for tools", events: []journal.Event{thought("early"), user, thought("b", "c1"), result}},
		{name: "answer then a follow-up", events: []journal.Event{thought("done"), user},
			final: "done", isFinal: true},
		{name: "answer, then interrupted", events: []journal.Event{thought("done"), end(Interrupted)},
			final: "done", isFinal: true},
	} {
		if got, ok := FinalAnswer(c.events); got != c.final || ok != c.isFinal {
			t.Errorf("%s: FinalAnswer = %q, %v; want %q, %v", c.name, got, ok, c.final, c.isFinal)
		}
		if got, ok := UnendedAnswer(c.events); got != c.unended || ok != c.isOpen {
			t.Errorf("%s: UnendedAnswer = %q, %v; want %q, %v", c.name, got, ok, c.unended, c.isOpen)
		}
	}
	if LastThought([]journal.Event{thought("x", "c1"), result}).Content != "x" || LastThought([]journal.Event{user}) != nil {
		t.Error("LastThought does not find the last THOUGHT")
	}
}
