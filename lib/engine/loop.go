package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/journal"
)

// DefaultLoopWindow is how many of the last tool calls loop detection
// looks at when the agent does not say.
const DefaultLoopWindow = 10

// detectLoop journals a SYSTEM_MESSAGE (kind loop_detection) when the
// last LoopWindow tool calls repeat a pattern of one, two or three calls
// (seeds/001 loop detection). A call's signature is its name and its
// arguments. Only calls after the last such warning count, so a warning
// is given once per window of repeats, not at every iteration. The model
// sees it through the journal source of its context.
func (e *Engine) detectLoop(events []journal.Event, it int) error {
	window := e.LoopWindow
	if window == 0 {
		window = DefaultLoopWindow
	}
	if window < 0 {
		return nil
	}
	sigs := recentCalls(events, window)
	if !repeats(sigs, window) {
		return nil
	}
	msg := fmt.Sprintf("Loop detected: the last %d tool calls follow a repeating pattern. Try a different approach.", window)
	e.Log.Printf("iteration %d: %s", it, msg)
	return e.append(&journal.Event{Type: journal.SystemMessage, Kind: journal.KindLoopDetection, Iteration: it, Content: msg})
}

// recentCalls is the signatures of the last n tool calls after the last
// loop warning, oldest first.
func recentCalls(events []journal.Event, n int) []string {
	var sigs []string
	for i := len(events) - 1; i >= 0 && len(sigs) < n; i-- {
		ev := events[i]
		if isLoopWarning(ev) {
			break
		}
		if ev.Type != journal.Thought {
			continue
		}
		for j := len(ev.ToolCalls) - 1; j >= 0 && len(sigs) < n; j-- {
			c := ev.ToolCalls[j]
			sigs = append(sigs, c.Name+"\x00"+c.Arguments)
		}
	}
	slices.Reverse(sigs)
	return sigs
}

// isLoopWarning recognises loop warnings, also those journaled before
// SYSTEM_MESSAGE had a kind.
func isLoopWarning(ev journal.Event) bool {
	return ev.Type == journal.SystemMessage &&
		(ev.Kind == journal.KindLoopDetection || ev.Kind == "" && strings.HasPrefix(ev.Content, "Loop detected"))
}

// repeats reports whether the window of calls is one pattern of length 1,
// 2 or 3 repeated throughout; a length that does not divide the window is
// not tried.
func repeats(calls []string, window int) bool {
	if len(calls) < window {
		return false
	}
	for n := 1; n <= 3; n++ {
		if window%n != 0 {
			continue
		}
		match := true
		for i := n; i < window && match; i += n {
			match = slices.Equal(calls[i:i+n], calls[:n])
		}
		if match {
			return true
		}
	}
	return false
}
