package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deltakit/delta/lib/llm"
)

// A modifying hook answers with a JSON object of the same shape as the
// payload it was given (input/payload.json). The engine merges it: every
// field present in the answer replaces the engine's value, every field
// left out keeps it, so a hook may write back the whole payload or only
// what it changed. What each hook may replace:
//
//	pre_llm_request     the request: params, messages, tools
//	post_llm_response   content, tool_calls, finish_reason (usage and model
//	                    stay what the provider reported)
//	pre_tool_execution  tool_args (a JSON object)
//	post_tool_execution observation, is_error (the io/tool_executions record
//	                    keeps the tool's full output)
//
// An answer that does not fit is ignored: the engine goes on with its own
// value and the HOOK_EXECUTION event says why (decision continue).

// errNotObject: a hook's final_payload.json is not a JSON object.
var errNotObject = errors.New("final_payload.json is not a JSON object")

// payloadFields splits a hook's answer into its top-level fields.
func payloadFields(payload json.RawMessage) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil || fields == nil {
		return nil, errNotObject
	}
	return fields, nil
}

// mergeRequest applies a pre_llm_request answer to req. The merge decodes
// onto a fresh copy of req so that a failed answer leaves req untouched.
func mergeRequest(req *llm.Request, payload json.RawMessage) error {
	if _, err := payloadFields(payload); err != nil {
		return err
	}
	orig, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var merged llm.Request
	if err := json.Unmarshal(orig, &merged); err != nil {
		return err
	}
	if err := json.Unmarshal(payload, &merged); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	if len(merged.Messages) == 0 {
		return errors.New("request has no messages")
	}
	merged.Turn = req.Turn
	*req = merged
	return nil
}

// mergeResponse applies a post_llm_response answer to resp.
func mergeResponse(resp *llm.Response, payload json.RawMessage) error {
	fields, err := payloadFields(payload)
	if err != nil {
		return err
	}
	out := *resp
	if raw, ok := fields["content"]; ok {
		out.Content = ""
		if err := decodeNullable(raw, &out.Content); err != nil {
			return fmt.Errorf("content: %w", err)
		}
	}
	if raw, ok := fields["finish_reason"]; ok {
		out.FinishReason = ""
		if err := decodeNullable(raw, &out.FinishReason); err != nil {
			return fmt.Errorf("finish_reason: %w", err)
		}
	}
	if raw, ok := fields["tool_calls"]; ok {
		calls, err := decodeToolCalls(raw)
		if err != nil {
			return fmt.Errorf("tool_calls: %w", err)
		}
		out.ToolCalls = calls
	}
	*resp = out
	return nil
}

// hookToolCall is a tool call in a hook's answer: arguments may be the
// JSON text (as the payload gives it) or the object itself.
type hookToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// decodeToolCalls reads a tool_calls array; null or [] means none (the
// response becomes a final answer).
func decodeToolCalls(raw json.RawMessage) ([]llm.ToolCall, error) {
	var in []hookToolCall
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	calls := make([]llm.ToolCall, 0, len(in))
	for i, c := range in {
		if c.Name == "" {
			return nil, fmt.Errorf("call %d has no name", i+1)
		}
		args := "{}"
		trimmed := bytes.TrimSpace(c.Arguments)
		switch {
		case len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")):
		case trimmed[0] == '"':
			if err := json.Unmarshal(trimmed, &args); err != nil {
				return nil, fmt.Errorf("call %d arguments: %w", i+1, err)
			}
		default:
			args = string(trimmed)
		}
		calls = append(calls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
	}
	return calls, nil
}

// mergeToolArgs applies a pre_tool_execution answer: tool_args, when
// present, must be a JSON object.
func mergeToolArgs(args *json.RawMessage, payload json.RawMessage) error {
	fields, err := payloadFields(payload)
	if err != nil {
		return err
	}
	raw, ok := fields["tool_args"]
	if !ok {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return errors.New("tool_args is not a JSON object")
	}
	*args = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	return nil
}

// mergeOutcome applies a post_tool_execution answer: observation and
// is_error replace what the model sees; exit code, duration and the
// record path stay facts about the run.
func mergeOutcome(res *ToolOutcome, payload json.RawMessage) error {
	fields, err := payloadFields(payload)
	if err != nil {
		return err
	}
	out := *res
	if raw, ok := fields["observation"]; ok {
		out.Observation = ""
		if err := decodeNullable(raw, &out.Observation); err != nil {
			return fmt.Errorf("observation: %w", err)
		}
	}
	if raw, ok := fields["is_error"]; ok {
		if err := json.Unmarshal(raw, &out.IsError); err != nil {
			return fmt.Errorf("is_error: %w", err)
		}
	}
	*res = out
	return nil
}

// decodeNullable decodes a JSON string into s; null leaves s as it is.
func decodeNullable(raw json.RawMessage, s *string) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return json.Unmarshal(raw, s)
}
