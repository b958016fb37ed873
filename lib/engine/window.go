package engine

import (
	"fmt"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// contextWarnShare is the share of the context window past which the
// engine warns (seeds/001 context window awareness).
const contextWarnShare = 0.8

// estimateTokens is a request's size by Delta's usual estimate
// (llm.CharsPerToken): its messages and the tool schemas sent with them.
func estimateTokens(req llm.Request) int64 {
	n := llm.MessageChars(req.Messages)
	for _, t := range req.Tools {
		n += utf8.RuneCountInString(t.Name) + utf8.RuneCountInString(t.Description) + len(t.Parameters)
	}
	return int64(llm.TokensOf(n))
}

// checkContextUsage journals a SYSTEM_MESSAGE (kind context_window) when
// the request is estimated past 80% of the model's window, once per
// invocation: a host can act on it (fold, stop, switch models), and the
// model sees it in its next request. Nothing is cut or summarised.
func (e *Engine) checkContextUsage(events []journal.Event, req llm.Request, it int) error {
	if e.ContextWindow <= 0 {
		return nil
	}
	tokens := estimateTokens(req)
	if float64(tokens) <= contextWarnShare*float64(e.ContextWindow) {
		return nil
	}
	for i := len(events) - 1; i >= 0 && events[i].Type != journal.EngineStart; i-- {
		if events[i].Type == journal.SystemMessage && events[i].Kind == journal.KindContextWindow {
			return nil
		}
	}
	msg := fmt.Sprintf("Context usage at ~%d%% of context window (about %d of %d tokens).",
		tokens*100/e.ContextWindow, tokens, e.ContextWindow)
	e.Log.Printf("iteration %d: %s", it, msg)
	return e.append(&journal.Event{Type: journal.SystemMessage, Kind: journal.KindContextWindow, Iteration: it, Content: msg})
}

// overflowHint says what to do about a request the model found too long.
func (e *Engine) overflowHint(req llm.Request) string {
	window := "unknown"
	if e.ContextWindow > 0 {
		window = fmt.Sprint(e.ContextWindow)
	}
	return fmt.Sprintf("the request (about %d tokens by estimate; context window %s) does not fit the model: "+
		"fold older turns (max_tokens or max_iterations on the journal source in context.yaml, or a delta-context fold generator), "+
		"lower llm.max_tokens to leave room, or use a model with a larger window (and set llm.context_window to it)",
		estimateTokens(req), window)
}
