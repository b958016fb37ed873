package runs

import "github.com/deltakit/delta/lib/journal"

// The final answer of a run lives here, for every program that reads one
// from a journal: the engine (a run answered but not yet ended), fork (is
// the fork complete), subagents and workflows (what a completed child
// said).

// LastThought is the run's last THOUGHT, nil when it has none.
func LastThought(events []journal.Event) *journal.Event {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == journal.Thought {
			return &events[i]
		}
	}
	return nil
}

// FinalAnswer is the final answer of the run of events: the text of its
// last THOUGHT when that THOUGHT asks for no tool call (the model's answer,
// on which a run completes). ok is false when the run has no THOUGHT or
// its last one asks for tools.
func FinalAnswer(events []journal.Event) (answer string, ok bool) {
	last := LastThought(events)
	if last == nil || len(last.ToolCalls) > 0 {
		return "", false
	}
	return last.Content, true
}

// UnendedAnswer is FinalAnswer for a run whose last invocation stopped
// after the model's final answer was journaled but before the run's end
// was: nothing follows that answer but engine bookkeeping (ENGINE_START,
// HOOK_EXECUTION, SYSTEM_MESSAGE, or an ENGINE_END that says COMPLETED).
// The engine then completes the run with that answer instead of asking
// the model again.
func UnendedAnswer(events []journal.Event) (answer string, ok bool) {
	for i := len(events) - 1; i >= 0; i-- {
		switch ev := events[i]; ev.Type {
		case journal.EngineStart, journal.HookExecution, journal.SystemMessage:
			continue
		case journal.EngineEnd:
			// Killed after ENGINE_END but before metadata.json said so.
			if Status(ev.Status) != Completed {
				return "", false
			}
		case journal.Thought:
			return FinalAnswer(events[:i+1])
		default:
			return "", false
		}
	}
	return "", false
}
