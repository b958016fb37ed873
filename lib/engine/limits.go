package engine

import (
	"fmt"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// turnLimit stops the loop before the next model call when a turn limit
// of seeds/001 is reached: max_turns, the model turns of the whole run,
// or max_tool_rounds_per_input, the rounds of tool calls since the last
// user input. Unlike max_iterations (a safety net that fails the run),
// these are the agent's own budget: it journals TURN_LIMIT and completes
// the run with what it has, the model's last text. It returns nil when no
// limit is reached.
func (e *Engine) turnLimit(events []journal.Event, turn int) (*Outcome, error) {
	var kind, msg string
	switch rounds := toolRounds(events); {
	case e.MaxTurns > 0 && turn >= e.MaxTurns:
		kind = journal.KindMaxTurns
		msg = fmt.Sprintf("The agent stopped after %d model turns, the run's max_turns; the answer is its last text.", turn)
	case e.MaxToolRounds > 0 && rounds >= e.MaxToolRounds:
		kind = journal.KindMaxToolRounds
		msg = fmt.Sprintf("The agent stopped after %d rounds of tool calls for this input (max_tool_rounds_per_input); the answer is its last text.", rounds)
	default:
		return nil, nil
	}
	e.Log.Printf("iteration %d: turn limit %s: %s", turn, kind, msg)
	if err := e.append(&journal.Event{Type: journal.TurnLimit, Iteration: turn, Kind: kind, Content: msg}); err != nil {
		return nil, err
	}
	out := e.outcome(runs.Completed, nil)
	out.ResultText = lastText(events)
	out.Result = ParseResult(out.ResultText)
	out.TurnLimit = kind
	return &out, nil
}

// toolRounds counts the model turns that called tools since the last
// user input: a USER_MESSAGE other than a steering message, which joins
// the input it steers rather than starting a new one.
func toolRounds(events []journal.Event) int {
	n := 0
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		switch {
		case ev.Type == journal.UserMessage && ev.Source != runs.SourceSteer:
			return n
		case ev.Type == journal.Thought && len(ev.ToolCalls) > 0:
			n++
		}
	}
	return n
}

// lastText is the text of the model's last turn that had any: what the
// run returns when a limit stops it.
func lastText(events []journal.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if ev := events[i]; ev.Type == journal.Thought && ev.Content != "" {
			return ev.Content
		}
	}
	return ""
}
