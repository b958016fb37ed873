package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/jsonl"
	"github.com/deltakit/delta/lib/llm"
)

// deltaEngineEvent is a journal line written by the TypeScript
// delta-engine 1.10: an envelope with the event's fields in payload.
type deltaEngineEvent struct {
	Seq       int64     `json:"seq"`
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		RunID              string          `json:"run_id"`
		Task               string          `json:"task"`
		AgentRef           string          `json:"agent_ref"`
		Status             string          `json:"status"`
		Content            string          `json:"content"`
		Level              string          `json:"level"`
		ActionID           string          `json:"action_id"`
		ToolName           string          `json:"tool_name"`
		ToolArgs           json.RawMessage `json:"tool_args"`
		ObservationContent string          `json:"observation_content"`
		ExecutionRef       string          `json:"execution_ref"`
		HookName           string          `json:"hook_name"`
		IOPathRef          string          `json:"io_path_ref"`
		ToolCalls          []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"payload"`
}

// IsDeltaEngine reports whether data is a journal delta-engine 1.10 wrote
// (its events carry their fields in "payload").
func IsDeltaEngine(data []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	var probe struct {
		Payload json.RawMessage `json:"payload"`
	}
	return json.Unmarshal(first, &probe) == nil && len(probe.Payload) > 0
}

// FromDeltaEngine converts a delta-engine 1.10 journal into Delta's
// events, renumbered 1, 2, 3 …: RUN_START becomes ENGINE_START, RUN_END
// ENGINE_END, HOOK_EXECUTION_AUDIT HOOK_EXECUTION; action ids become call
// ids; iterations are counted from the THOUGHTs. workDir is the run's
// workspace (delta-engine did not record it). A torn last line is left
// out, as a crash leaves it.
func FromDeltaEngine(data []byte, workDir string) ([]Event, error) {
	var out []Event
	it := 0
	lines := bytes.Split(data, []byte("\n"))
	for n, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var d deltaEngineEvent
		if err := json.Unmarshal(line, &d); err != nil {
			if n == len(lines)-1 || len(bytes.TrimSpace(bytes.Join(lines[n+1:], nil))) == 0 {
				break // torn last line
			}
			return nil, fmt.Errorf("line %d: %w: %v", n+1, ErrCorrupt, err)
		}
		p := d.Payload
		ev := Event{Timestamp: d.Timestamp, Iteration: it}
		switch d.Type {
		case "RUN_START":
			ev.Type, ev.RunID, ev.AgentHome, ev.WorkDir, ev.Iteration = EngineStart, p.RunID, p.AgentRef, workDir, 0
		case "RUN_END":
			ev.Type, ev.Status, ev.FinalIteration, ev.Iteration = EngineEnd, p.Status, it, 0
		case "USER_MESSAGE":
			ev.Type, ev.Content, ev.Iteration = UserMessage, p.Content, 0
		case "SYSTEM_MESSAGE":
			ev.Type, ev.Content = SystemMessage, p.Content
		case "THOUGHT":
			it++
			ev.Type, ev.Content, ev.Iteration = Thought, p.Content, it
			for _, c := range p.ToolCalls {
				ev.ToolCalls = append(ev.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
		case "ACTION_REQUEST":
			ev.Type, ev.CallID, ev.ToolName, ev.ToolArgs = ActionRequest, p.ActionID, p.ToolName, p.ToolArgs
		case "ACTION_RESULT":
			ev.Type, ev.CallID, ev.ObservationContent, ev.ExecutionRef = ActionResult, p.ActionID, p.ObservationContent, p.ExecutionRef
			ev.IsError = p.Status != "SUCCESS"
			ev.ToolName = requestedTool(out, p.ActionID)
		case "HOOK_EXECUTION_AUDIT":
			ev.Type, ev.HookName, ev.Decision, ev.HookRef = HookExecution, p.HookName, p.Status, p.IOPathRef
		default:
			ev.Type, ev.Content = SystemMessage, fmt.Sprintf("[delta-engine %s event] %s", d.Type, line)
		}
		ev.Seq = int64(len(out) + 1)
		out = append(out, ev)
	}
	return out, nil
}

// requestedTool is the tool of the ACTION_REQUEST with callID.
func requestedTool(events []Event, callID string) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == ActionRequest && events[i].CallID == callID {
			return events[i].ToolName
		}
	}
	return ""
}

// Encode renders events as journal lines, one JSON object each.
func Encode(events []Event) ([]byte, error) {
	var b bytes.Buffer
	for i := range events {
		line, err := jsonl.Encode(&events[i])
		if err != nil {
			return nil, err
		}
		b.Write(line)
	}
	return b.Bytes(), nil
}
