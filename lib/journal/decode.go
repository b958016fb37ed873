package journal

import (
	"slices"
	"time"

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
func decodeEvent(data []byte, e *Event) bool { return decodeFields(data, e, 0, nil) }

// decodeFields is decodeEvent leaving the fields whose bits are in skip
// zero: their values are checked as decodeEvent checks them, without
// allocating. shared, when not nil, makes the strings (data is then never
// changed).
func decodeFields(data []byte, e *Event, skip uint64, shared *sharedStrings) bool {
	d := decoder{data: data, shared: shared}
	var seen uint64
	ok := d.object(func(key []byte) bool {
		f := keyIndex(key)
		if f < 0 || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		if skip&(1<<f) != 0 {
			return d.discardField(f)
		}
		return d.eventField(f, e)
	})
	if !ok {
		return false
	}
	d.space()
	return d.i == len(d.data)
}

// eventField decodes the value of field f into e.
func (d *decoder) eventField(f int, e *Event) bool {
	if f == fType {
		var ok bool
		e.Type, ok = d.eventType()
		return ok
	}
	if dst := e.stringField(f); dst != nil {
		var ok bool
		*dst, ok = d.str()
		return ok
	}
	ok := true
	switch f {
	case fSeq:
		e.Seq, ok = d.int()
	case fTimestamp:
		raw, good := d.rawStr()
		ok = good && e.Timestamp.UnmarshalJSON(raw) == nil
	case fIteration:
		ok = d.intField(&e.Iteration)
	case fFinalIteration:
		ok = d.intField(&e.FinalIteration)
	case fExitCode:
		var n int
		ok = d.intField(&n)
		e.ExitCode = &n
	case fDurationMS:
		e.DurationMS, ok = d.int()
	case fIsError:
		e.IsError, ok = d.bool()
	case fSensitive:
		e.Sensitive, ok = d.bool()
	case fSandboxRefused:
		e.SandboxRefused, ok = d.bool()
	case fUnsandboxed:
		e.Unsandboxed, ok = d.bool()
	case fConfig:
		e.Config, ok = d.raw()
	case fToolArgs:
		e.ToolArgs, ok = d.raw()
	case fErrorDetails:
		e.ErrorDetails, ok = d.raw()
	case fToolCalls:
		e.ToolCalls, ok = d.toolCalls()
	case fUsage:
		e.Usage = &llm.Usage{}
		ok = d.usage(e.Usage)
	case fReasoning:
		e.Reasoning, ok = d.reasoning()
	case fParts:
		e.Parts, ok = d.parts()
	case fPaths:
		e.Paths, ok = d.stringList()
	default:
		return false
	}
	return ok
}

// eventTypes are the types the engine writes: an event's type is one of
// them nearly always, and decoding it as the constant makes no string.
var eventTypes = [...]Type{EngineStart, UserMessage, Thought, ActionRequest, ActionResult, HumanInputRequest,
	HumanInputReceived, Error, EngineEnd, SystemMessage, HookExecution, TurnLimit}

// eventType decodes the type field.
func (d *decoder) eventType() (Type, bool) {
	raw, plain, ok := d.scanStr()
	if !ok {
		return "", false
	}
	if plain {
		for _, t := range eventTypes {
			if string(t) == string(raw[1:len(raw)-1]) {
				return t, true
			}
		}
	}
	d.i -= len(raw)
	s, ok := d.str()
	return Type(s), ok
}

// stringField is the string field of e with index f, nil when f is not a
// string field (type is one: a Type).
func (e *Event) stringField(f int) *string {
	switch f {
	case fType:
		return (*string)(&e.Type)
	case fRunID:
		return &e.RunID
	case fAgentHome:
		return &e.AgentHome
	case fWorkDir:
		return &e.WorkDir
	case fStatus:
		return &e.Status
	case fContent:
		return &e.Content
	case fModel:
		return &e.Model
	case fInvocationRef:
		return &e.InvocationRef
	case fCallID:
		return &e.CallID
	case fToolName:
		return &e.ToolName
	case fObservationContent:
		return &e.ObservationContent
	case fExecutionRef:
		return &e.ExecutionRef
	case fPrompt:
		return &e.Prompt
	case fInputType:
		return &e.InputType
	case fResponse:
		return &e.Response
	case fErrorMessage:
		return &e.ErrorMessage
	case fHookName:
		return &e.HookName
	case fDecision:
		return &e.Decision
	case fHookRef:
		return &e.HookRef
	case fResponseID:
		return &e.ResponseID
	case fKind:
		return &e.Kind
	case fSource:
		return &e.Source
	case fMessageID:
		return &e.MessageID
	case fRule:
		return &e.Rule
	case fBy:
		return &e.By
	case fParentRunID:
		return &e.ParentRunID
	case fOutputFile:
		return &e.OutputFile
	case fStderrFile:
		return &e.StderrFile
	case fPath:
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
		return d.strings(func(key []byte) *string {
			switch string(key) {
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
		return d.strings(func(key []byte) *string {
			switch string(key) {
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

// parts decodes ACTION_RESULT's parts array: references to files, so no
// data (a line with data is left to encoding/json).
func (d *decoder) parts() ([]llm.Part, bool) {
	parts := []llm.Part{}
	ok := d.array(func() bool {
		parts = append(parts, llm.Part{}) // decoded in place, as a tool call
		p := &parts[len(parts)-1]
		var seen uint8
		return d.object(func(key []byte) bool {
			var bit uint8
			var dst *string
			switch string(key) {
			case "type":
				bit, dst = 1, &p.Type
			case "media_type":
				bit, dst = 2, &p.MediaType
			case "path":
				bit, dst = 4, &p.Path
			case "bytes":
				bit = 8
			default:
				return false
			}
			if seen&bit != 0 {
				return false
			}
			seen |= bit
			var ok bool
			if dst == nil {
				p.Size, ok = d.int()
			} else {
				*dst, ok = d.str()
			}
			return ok
		})
	})
	return parts, ok
}

// strings decodes an object whose values are all strings into the fields
// field names (nil for a key it does not know: the line is then left to
// encoding/json, as is a key given twice).
func (d *decoder) strings(field func(key []byte) *string) bool {
	var seen [8]*string // no allocation: the objects have a few fields
	n := 0
	return d.object(func(key []byte) bool {
		dst := field(key)
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

// discardField checks the value of field f as eventField would decode
// it, keeping nothing: the fields ScanFields leaves out cost no
// allocation.
func (d *decoder) discardField(f int) bool {
	switch f {
	case fUsage:
		var u llm.Usage
		return d.usage(&u)
	case fIteration, fFinalIteration, fExitCode:
		var n int
		return d.intField(&n)
	case fSeq, fDurationMS:
		_, ok := d.int()
		return ok
	case fIsError, fSensitive:
		_, ok := d.bool()
		return ok
	case fTimestamp:
		raw, ok := d.rawStr()
		if !ok {
			return false
		}
		var t time.Time
		return plainTimestamp(raw) || t.UnmarshalJSON(raw) == nil
	case fConfig, fToolArgs, fErrorDetails:
		return d.skip() // raw's check, without the copy
	case fToolCalls, fReasoning, fParts:
		var e Event
		return d.eventField(f, &e)
	}
	_, _, ok := d.scanStr() // a string field
	return ok
}

// plainTimestamp reports whether raw is a quoted UTC time as the Writer
// writes it ("2006-01-02T15:04:05.999999999Z", the fraction optional) with
// every field in a range any month allows: such a time is one
// time.Time.UnmarshalJSON accepts, checked without its cost (it was a
// twentieth of reading a long journal for a few fields). Anything else,
// a day 29 to 31 included, is left to UnmarshalJSON.
func plainTimestamp(raw []byte) bool {
	if len(raw) < 22 || raw[0] != '"' || raw[len(raw)-1] != '"' || raw[len(raw)-2] != 'Z' {
		return false
	}
	t := raw[1 : len(raw)-2] // 2006-01-02T15:04:05 and the fraction
	num := func(i int, max int) bool {
		a, b := t[i], t[i+1]
		return '0' <= a && a <= '9' && '0' <= b && b <= '9' && int(a-'0')*10+int(b-'0') <= max
	}
	if t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' ||
		!num(0, 99) || !num(2, 99) || !num(5, 12) || string(t[5:7]) == "00" || !num(8, 28) ||
		string(t[8:10]) == "00" || !num(11, 23) || !num(14, 59) || !num(17, 59) {
		return false
	}
	frac := t[19:]
	if len(frac) == 0 {
		return true
	}
	if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
		return false
	}
	for _, c := range frac[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
