package journal

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

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
func decodeEvent(data []byte, e *Event) bool {
	d := decoder{data: data}
	var seen uint64
	ok := d.object(func(key []byte) bool {
		bit, ok := eventFieldBits[string(key)]
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
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
		"decision", "hook_ref", "response_id", "reasoning", "kind", "source", "message_id", "rule", "by", "parent_run_id"}
	m := make(map[string]uint64, len(keys))
	for i, k := range keys {
		m[k] = 1 << i
	}
	return m
}()

// eventField decodes the value of key into its field of e.
func (d *decoder) eventField(key []byte, e *Event) bool {
	ok := true
	switch string(key) {
	case "type":
		var s string
		s, ok = d.str()
		e.Type = Type(s)
	case "seq":
		e.Seq, ok = d.int()
	case "timestamp":
		raw, good := d.rawStr()
		ok = good && e.Timestamp.UnmarshalJSON(raw) == nil
	case "iteration":
		ok = d.intField(&e.Iteration)
	case "run_id":
		e.RunID, ok = d.str()
	case "agent_home":
		e.AgentHome, ok = d.str()
	case "work_dir":
		e.WorkDir, ok = d.str()
	case "config":
		e.Config, ok = d.raw()
	case "status":
		e.Status, ok = d.str()
	case "final_iteration":
		ok = d.intField(&e.FinalIteration)
	case "content":
		e.Content, ok = d.str()
	case "tool_calls":
		e.ToolCalls, ok = d.toolCalls()
	case "usage":
		e.Usage, ok = d.usage()
	case "model":
		e.Model, ok = d.str()
	case "invocation_ref":
		e.InvocationRef, ok = d.str()
	case "call_id":
		e.CallID, ok = d.str()
	case "tool_name":
		e.ToolName, ok = d.str()
	case "tool_args":
		e.ToolArgs, ok = d.raw()
	case "observation_content":
		e.ObservationContent, ok = d.str()
	case "exit_code":
		var n int
		ok = d.intField(&n)
		e.ExitCode = &n
	case "is_error":
		e.IsError, ok = d.bool()
	case "duration_ms":
		e.DurationMS, ok = d.int()
	case "execution_ref":
		e.ExecutionRef, ok = d.str()
	case "prompt":
		e.Prompt, ok = d.str()
	case "input_type":
		e.InputType, ok = d.str()
	case "sensitive":
		e.Sensitive, ok = d.bool()
	case "response":
		e.Response, ok = d.str()
	case "error_message":
		e.ErrorMessage, ok = d.str()
	case "error_details":
		e.ErrorDetails, ok = d.raw()
	case "hook_name":
		e.HookName, ok = d.str()
	case "decision":
		e.Decision, ok = d.str()
	case "hook_ref":
		e.HookRef, ok = d.str()
	case "response_id":
		e.ResponseID, ok = d.str()
	case "reasoning":
		e.Reasoning, ok = d.reasoning()
	case "kind":
		e.Kind, ok = d.str()
	case "source":
		e.Source, ok = d.str()
	case "message_id":
		e.MessageID, ok = d.str()
	case "rule":
		e.Rule, ok = d.str()
	case "by":
		e.By, ok = d.str()
	case "parent_run_id":
		e.ParentRunID, ok = d.str()
	default:
		return false
	}
	return ok
}

// toolCalls decodes THOUGHT's tool_calls array.
func (d *decoder) toolCalls() ([]llm.ToolCall, bool) {
	calls := []llm.ToolCall{}
	ok := d.array(func() bool {
		var c llm.ToolCall
		ok := d.strings(func(key string) *string {
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
		calls = append(calls, c)
		return ok
	})
	return calls, ok
}

// reasoning decodes THOUGHT's reasoning array.
func (d *decoder) reasoning() ([]llm.Reasoning, bool) {
	blocks := []llm.Reasoning{}
	ok := d.array(func() bool {
		var r llm.Reasoning
		ok := d.strings(func(key string) *string {
			switch key {
			case "type":
				return &r.Type
			case "text":
				return &r.Text
			case "signature":
				return &r.Signature
			case "data":
				return &r.Data
			}
			return nil
		})
		blocks = append(blocks, r)
		return ok
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

// usage decodes THOUGHT's usage object.
func (d *decoder) usage() (*llm.Usage, bool) {
	u := &llm.Usage{}
	var seen uint8
	ok := d.object(func(key []byte) bool {
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
	return u, ok
}

// decoder reads JSON from data at offset i. Every method returns false
// when the input is not what it handles.
type decoder struct {
	data  []byte
	i     int
	depth int
}

// maxDepth bounds the nesting of raw values (encoding/json's own limit is
// far higher; deeper values are left to it).
const maxDepth = 64

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether c comes next, consuming it.
func (d *decoder) next(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object decodes {"key": value, …}, calling field with each key (without
// its quotes) positioned at its value.
func (d *decoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		d.space()
		raw, ok := d.rawStr()
		if !ok {
			return false
		}
		// A key with escapes is passed as written: it matches no field
		// name, so the line goes to encoding/json.
		key := raw[1 : len(raw)-1]
		if !d.next(':') {
			return false
		}
		d.space()
		if !field(key) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// array decodes [value, …], calling elem positioned at each value.
func (d *decoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		d.space()
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next(']')
	}
}

// str decodes a string value.
func (d *decoder) str() (string, bool) {
	raw, plain, ok := d.scanStr()
	if !ok {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if plain {
		return string(body), true
	}
	return unquote(body)
}

// rawStr returns the string value at the offset, quotes included, after
// checking it is a valid JSON string.
func (d *decoder) rawStr() ([]byte, bool) {
	raw, _, ok := d.scanStr()
	return raw, ok
}

// strByte classifies the bytes of a JSON string: 0 for bytes that stand
// for themselves in ASCII, 1 for the quote, 2 for the backslash, 3 for
// control characters (invalid), 4 for the bytes of non-ASCII characters.
var strByte = func() (t [256]byte) {
	for c := 0; c < 0x20; c++ {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = 4
	}
	return t
}()

// scanStr is rawStr that also reports whether the string is plain: ASCII
// without escapes, its body being its value.
func (d *decoder) scanStr() (raw []byte, plain, ok bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false, false
	}
	start := d.i
	plain = true
	for i := d.i + 1; i < len(d.data); {
		switch strByte[d.data[i]] {
		case 0:
			i++
		case 1:
			d.i = i + 1
			return d.data[start:d.i], plain, true
		case 2:
			plain = false
			if i+1 >= len(d.data) {
				return nil, false, false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d.data) {
					return nil, false, false
				}
				for _, h := range d.data[i+2 : i+6] {
					if hexValue(h) < 0 {
						return nil, false, false
					}
				}
				i += 6
			default:
				return nil, false, false
			}
		case 3:
			return nil, false, false
		default:
			plain = false
			i++
		}
	}
	return nil, false, false
}

// unquote decodes the body of a valid JSON string with escapes or
// non-ASCII bytes. Invalid UTF-8 and lone surrogates, which encoding/json
// replaces with U+FFFD, are left to it.
func unquote(body []byte) (string, bool) {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			switch body[i+1] {
			case '"', '\\', '/':
				out = append(out, body[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(body[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
						return "", false
					}
					r = utf16.DecodeRune(r, hex4(body[i+2:i+6]))
					if r == utf8.RuneError {
						return "", false
					}
					i += 6
				}
				out = utf8.AppendRune(out, r)
				continue
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out = append(out, body[i:i+size]...)
			i += size
		}
	}
	return string(out), true
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r = r<<4 | rune(hexValue(c))
	}
	return r
}

// int decodes an integer written without fraction or exponent.
func (d *decoder) int() (int64, bool) {
	start := d.i
	i := d.i
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
		i++
	}
	if i == digits || (d.data[digits] == '0' && i-digits > 1) {
		return 0, false
	}
	if i < len(d.data) {
		switch d.data[i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(d.data[start:i]), 10, 64)
	if err != nil {
		return 0, false
	}
	d.i = i
	return n, true
}

// intField decodes an integer into an int field.
func (d *decoder) intField(dst *int) bool {
	n, ok := d.int()
	if ok && int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return ok
}

func (d *decoder) bool() (bool, bool) {
	rest := d.data[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// raw returns a copy of the value at the offset, checked to be valid JSON,
// for json.RawMessage fields.
func (d *decoder) raw() (json.RawMessage, bool) {
	start := d.i
	if !d.skip() {
		return nil, false
	}
	return append(json.RawMessage(nil), d.data[start:d.i]...), true
}

// skip moves past one valid JSON value.
func (d *decoder) skip() bool {
	if d.i >= len(d.data) {
		return false
	}
	switch c := d.data[d.i]; {
	case c == '"':
		_, ok := d.rawStr()
		return ok
	case c == '{' || c == '[':
		if d.depth++; d.depth > maxDepth {
			return false
		}
		defer func() { d.depth-- }()
		if c == '[' {
			return d.array(d.skip)
		}
		return d.object(func([]byte) bool { return d.skip() })
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			return true
		}
	}
	return false
}

// number moves past a JSON number.
func (d *decoder) number() bool {
	i := d.i
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	n := digits()
	if n == 0 || (d.data[start] == '0' && n > 1) {
		return false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	d.i = i
	return true
}
