package journal

import (
	"slices"

	"github.com/deltakit/delta/lib/llm"
)

// decodeEvent decodes one journal line into e in a single pass, several
// times faster than encoding/json, which dominates reading a long journal.
// It handles the lines the Writer produces and anything shaped like them;
// whenever the line holds something whose meaning to encoding/json is
// subtle (an unknown or repeated key, null, a number that is not a plain
// integer, a string with invalid UTF-8 or a lone surrogate, more than
// whitespace after the object) it gives up and returns false, and the caller decodes the line with encoding/json.
// A fuzz test holds the two to the same result.
func decodeEvent(data []byte, e *Event) bool { return decodeFields(data, e, 0) }

// decodeFields is decodeEvent leaving the fields whose bits are in skip
// zero: their values are checked as decodeEvent checks them, without
// allocating.
func decodeFields(data []byte, e *Event, skip uint64) bool {
	d := decoder{data: data}
	var seen uint64
	ok := d.object(func(key []byte) bool {
		bit, ok := eventFieldBits[string(key)]
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if skip&bit != 0 {
			return d.discardField(key)
		}
		return d.eventField(key, e)
	})
	if !ok {
		return false
	}
	d.space()
	return d.i == len(d.data)
}

// eventFieldBits gives every JSON key of Event a bit, to notice keys that
// appear twice.
var eventFieldBits = func() map[string]uint64 {
	keys := []string{"type", "seq", "timestamp", "iteration", "run_id", "agent_home", "work_dir", "config",
		"status", "final_iteration", "content", "tool_calls", "usage", "model", "invocation_ref", "call_id",
		"tool_name", "tool_args", "observation_content", "exit_code", "is_error", "duration_ms", "execution_ref",
		"prompt", "input_type", "sensitive", "response", "error_message", "error_details", "hook_name",
		"decision", "hook_ref", "response_id", "reasoning", "kind", "source", "message_id", "rule", "by", "parent_run_id",
		"output_file", "stderr_file", "path", "paths"}
	m := make(map[string]uint64, len(keys))
	for i, k := range keys {
		m[k] = 1 << i
	}
	return m
}()

// eventField decodes the value of key into its field of e.
func (d *decoder) eventField(key []byte, e *Event) bool {
	if dst := e.stringField(string(key)); dst != nil {
		var ok bool
		*dst, ok = d.str()
		return ok
	}
	ok := true
	switch string(key) {
	case "seq":
		e.Seq, ok = d.int()
	case "timestamp":
		raw, good := d.rawStr()
		ok = good && e.Timestamp.UnmarshalJSON(raw) == nil
	case "iteration":
		ok = d.intField(&e.Iteration)
	case "final_iteration":
		ok = d.intField(&e.FinalIteration)
	case "exit_code":
		var n int
		ok = d.intField(&n)
		e.ExitCode = &n
	case "duration_ms":
		e.DurationMS, ok = d.int()
	case "is_error":
		e.IsError, ok = d.bool()
	case "sensitive":
		e.Sensitive, ok = d.bool()
	case "config":
		e.Config, ok = d.raw()
	case "tool_args":
		e.ToolArgs, ok = d.raw()
	case "error_details":
		e.ErrorDetails, ok = d.raw()
	case "tool_calls":
		e.ToolCalls, ok = d.toolCalls()
	case "usage":
		e.Usage = &llm.Usage{}
		ok = d.usage(e.Usage)
	case "reasoning":
		e.Reasoning, ok = d.reasoning()
	case "paths":
		e.Paths, ok = d.stringList()
	default:
		return false
	}
	return ok
}

// stringField is the string field of e that key names, nil when key names
// no string field.
func (e *Event) stringField(key string) *string {
	switch key {
	case "type":
		return (*string)(&e.Type)
	case "run_id":
		return &e.RunID
	case "agent_home":
		return &e.AgentHome
	case "work_dir":
		return &e.WorkDir
	case "status":
		return &e.Status
	case "content":
		return &e.Content
	case "model":
		return &e.Model
	case "invocation_ref":
		return &e.InvocationRef
	case "call_id":
		return &e.CallID
	case "tool_name":
		return &e.ToolName
	case "observation_content":
		return &e.ObservationContent
	case "execution_ref":
		return &e.ExecutionRef
	case "prompt":
		return &e.Prompt
	case "input_type":
		return &e.InputType
	case "response":
		return &e.Response
	case "error_message":
		return &e.ErrorMessage
	case "hook_name":
		return &e.HookName
	case "decision":
		return &e.Decision
	case "hook_ref":
		return &e.HookRef
	case "response_id":
		return &e.ResponseID
	case "kind":
		return &e.Kind
	case "source":
		return &e.Source
	case "message_id":
		return &e.MessageID
	case "rule":
		return &e.Rule
	case "by":
		return &e.By
	case "parent_run_id":
		return &e.ParentRunID
	case "output_file":
		return &e.OutputFile
	case "stderr_file":
		return &e.StderrFile
	case "path":
		return &e.Path
	}
	return nil
}

// toolCalls decodes THOUGHT's tool_calls array.
func (d *decoder) toolCalls() ([]llm.ToolCall, bool) {
	calls := []llm.ToolCall{}
	ok := d.array(func() bool {
		// Decoded in its place in calls: a call decoded apart would be
		// made on the heap, then copied.
		calls = append(calls, llm.ToolCall{})
		c := &calls[len(calls)-1]
		return d.strings(func(key string) *string {
			switch key {
			case "id":
				return &c.ID
			case "name":
				return &c.Name
			case "arguments":
				return &c.Arguments
			}
			return nil
		})
	})
	return calls, ok
}

// stringList decodes an array of strings (ACTION_REQUEST's paths).
func (d *decoder) stringList() ([]string, bool) {
	list := []string{}
	ok := d.array(func() bool {
		s, ok := d.str()
		list = append(list, s)
		return ok
	})
	return list, ok
}

// reasoning decodes THOUGHT's reasoning array.
func (d *decoder) reasoning() ([]llm.Reasoning, bool) {
	blocks := []llm.Reasoning{}
	ok := d.array(func() bool {
		blocks = append(blocks, llm.Reasoning{}) // decoded in place, as a tool call
		r := &blocks[len(blocks)-1]
		return d.strings(func(key string) *string {
			switch key {
			case "type":
				return &r.Type
			case "text":
				return &r.Text
			case "signature":
				return &r.Signature
			case "data":
				return &r.Data
			case "id":
				return &r.ID
			}
			return nil
		})
	})
	return blocks, ok
}

// strings decodes an object whose values are all strings into the fields
// field names (nil for a key it does not know: the line is then left to
// encoding/json, as is a key given twice).
func (d *decoder) strings(field func(key string) *string) bool {
	var seen [8]*string // no allocation: the objects have a few fields
	n := 0
	return d.object(func(key []byte) bool {
		dst := field(string(key))
		if dst == nil || n == len(seen) || slices.Contains(seen[:n], dst) {
			return false
		}
		seen[n] = dst
		n++
		var ok bool
		*dst, ok = d.str()
		return ok
	})
}

// usage decodes THOUGHT's usage object into u.
func (d *decoder) usage(u *llm.Usage) bool {
	var seen uint8
	return d.object(func(key []byte) bool {
		var bit uint8
		var dst *int64
		switch string(key) {
		case "input_tokens":
			bit, dst = 1, &u.InputTokens
		case "output_tokens":
			bit, dst = 2, &u.OutputTokens
		case "cache_read_input_tokens":
			bit, dst = 4, &u.CacheReadTokens
		case "cache_creation_input_tokens":
			bit, dst = 8, &u.CacheWriteTokens
		case "reasoning_tokens":
			bit, dst = 16, &u.ReasoningTokens
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		var ok bool
		*dst, ok = d.int()
		return ok
	})
}

// discardField checks the value of key as eventField would decode it,
// keeping nothing: the fields ScanFields leaves out cost no allocation.
func (d *decoder) discardField(key []byte) bool {
	var e Event // what stays on the stack: strings, times, numbers
	switch string(key) {
	case "usage":
		var u llm.Usage
		return d.usage(&u)
	case "exit_code":
		var n int
		return d.intField(&n)
	case "config", "tool_args", "error_details":
		return d.skip() // raw's check, without the copy
	}
	if e.stringField(string(key)) != nil {
		_, _, ok := d.scanStr()
		return ok
	}
	return d.eventField(key, &e)
}
