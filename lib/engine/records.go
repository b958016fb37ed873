package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// Record directories under the run directory (seeds/000 §1.2).
const (
	InvocationsDir    = "io/invocations"
	ToolExecutionsDir = "io/tool_executions"
)

// invocation is one io/invocations record: the exact request sent to the
// model and its answer (or error). API keys are never part of a Request.
type invocation struct {
	Iteration  int           `json:"iteration"`
	Timestamp  time.Time     `json:"timestamp"`
	DurationMS int64         `json:"duration_ms"`
	Request    llm.Request   `json:"request"`
	Response   *llm.Response `json:"response,omitempty"`
	Error      string        `json:"error,omitempty"`
}

// writeInvocation writes the record of one model call and returns its path
// relative to runDir ("{timestamp}_{iteration}.json", seeds/000 §1.2).
func writeInvocation(runDir string, it int, req llm.Request, resp llm.Response, callErr error, d time.Duration) (string, error) {
	now := time.Now().UTC()
	rec := invocation{Iteration: it, Timestamp: now, DurationMS: d.Milliseconds(), Request: req}
	if callErr != nil {
		rec.Error = callErr.Error()
	} else {
		rec.Response = &resp
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(runDir, InvocationsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	rel := filepath.Join(InvocationsDir, fmt.Sprintf("%s_%d.json", now.Format("20060102T150405.000000000Z"), it))
	return rel, writeRecord(filepath.Join(runDir, rel), append(data, '\n'))
}

// detectLoop journals a SYSTEM_MESSAGE warning when the last LoopWindow
// THOUGHTs asked for exactly the same tool calls (seeds/001 loop
// detection). The model sees it through the journal source of its context.
func (e *Engine) detectLoop(events []journal.Event, it int) error {
	window := e.LoopWindow
	if window == 0 {
		window = 3
	}
	if window < 0 {
		return nil
	}
	var sigs []string
	for i := len(events) - 1; i >= 0 && len(sigs) < window; i-- {
		ev := events[i]
		if ev.Type == journal.SystemMessage {
			return nil // only turns after the last warning count
		}
		if ev.Type != journal.Thought {
			continue
		}
		if len(ev.ToolCalls) == 0 {
			return nil
		}
		sig := ""
		for _, c := range ev.ToolCalls {
			sig += c.Name + "\x00" + c.Arguments + "\x00"
		}
		sigs = append(sigs, sig)
	}
	if len(sigs) < window {
		return nil
	}
	for _, s := range sigs[1:] {
		if s != sigs[0] {
			return nil
		}
	}
	msg := fmt.Sprintf("Loop detected: the last %d turns made exactly the same tool calls. Try a different approach, or answer with what you have.", window)
	e.Log.Printf("iteration %d: %s", it, msg)
	return e.append(&journal.Event{Type: journal.SystemMessage, Iteration: it, Content: msg})
}
