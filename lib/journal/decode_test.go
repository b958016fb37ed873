package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/jsonl"
	"github.com/deltakit/delta/lib/llm"
)

// fullEvent has every field of Event set, so that encoding it writes every
// key the decoder must know.
func fullEvent() Event {
	code := -1
	return Event{Type: Thought, Seq: 42, Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC), Iteration: 7,
		RunID: "r", AgentHome: "/a", WorkDir: "/w", Config: json.RawMessage(`{"model":"m","n":[1,2.5e3,true,null]}`),
		Status: "COMPLETED", FinalIteration: 9, Content: "héllo \"x\"\n\t<&> \u2028 😀",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":"\u00e9"}`}, {ID: "c2", Name: "u", Arguments: "{}"}},
		Usage:     &llm.Usage{InputTokens: 1 << 40, OutputTokens: 3, CacheReadTokens: 7, CacheWriteTokens: 2, ReasoningTokens: 1}, Model: "m", InvocationRef: "io/i.json",
		CallID: "c1", ToolName: "t", ToolArgs: json.RawMessage(`{"path":"a b","deep":{"x":[{}]}}`),
		ObservationContent: "out\r\n\x00\x1f", ExitCode: &code, IsError: true, DurationMS: 12, ExecutionRef: "io/t",
		Prompt: "p", InputType: "text", Sensitive: true, Response: "yes", ErrorMessage: "boom",
		ErrorDetails: json.RawMessage(`{"type":"x"}`), HookName: "h", Decision: "block", HookRef: "io/hooks/h",
		ResponseID: "msg_1", Kind: "loop_detection", Source: "steer", MessageID: "m1", Rule: "r", By: "ann", ParentRunID: "p1", Reasoning: []llm.Reasoning{{Type: "thinking", Text: "hmm \"x\"", Signature: "c2ln"}, {Type: "redacted_thinking", Data: "ZGF0YQ=="}}}
}

// TestDecodeEventTakesWriterLines checks that the one-pass decoder handles
// every line the Writer writes itself (falling back to encoding/json would
// make it pointless), with the result encoding/json gives.
func TestDecodeEventTakesWriterLines(t *testing.T) {
	full := fullEvent()
	if n := reflect.TypeOf(full).NumField(); n != len(eventFieldBits) {
		t.Fatalf("Event has %d fields, the decoder knows %d keys: teach decodeEvent the new ones", n, len(eventFieldBits))
	}
	for name, ev := range map[string]Event{
		"full":  full,
		"small": {Type: UserMessage, Seq: 1, Timestamp: time.Unix(0, 0).UTC(), Content: "hi"},
		"empty": {Type: EngineEnd},
	} {
		line, err := jsonl.Encode(&ev)
		if err != nil {
			t.Fatal(err)
		}
		line = line[:len(line)-1]
		var fast Event
		if !decodeEvent(line, &fast) {
			t.Errorf("%s: decodeEvent(%s) gave up", name, line)
			continue
		}
		var want Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Errorf("%s: decodeEvent mismatch (-encoding/json +decodeEvent):\n%s", name, diff)
		}
	}
}

// decodeSeeds are lines on the edges of what the decoder takes.
var decodeSeeds = []string{
	`{"type":"THOUGHT","seq":1,"timestamp":"2026-01-02T03:04:05.123456789Z","tool_calls":[]}`,
	`{"type":"THOUGHT","reasoning":[{"type":"thinking","text":"t","signature":"s"},{"type":"redacted_thinking","data":"d"}],"response_id":"m"}`,
	`{"type":"X","reasoning":[{"type":"a","type":"b"}]}`, `{"type":"X","reasoning":[{"other":"x"}]}`, `{"type":"X","reasoning":null}`,
	` {"type" : "X" , "seq" : -0 } `,
	`{"type":"X","seq":01}`, `{"type":"X","seq":1.0}`, `{"type":"X","seq":1e2}`, `{"type":"X","seq":9223372036854775808}`,
	`{"type":"X","seq":null}`, `{"type":"X","usage":null}`, `{"type":"X","tool_args":null}`, `{"type":"X","config":"s"}`,
	`{"type":"X","type":"Y"}`, `{"TYPE":"X"}`, `{"Type":"X","type":"Y"}`, `{"\u0074ype":"X"}`, `{"type":"X","extra":1}`,
	`{"type":"a\ud83d\ude00b"}`, `{"type":"a\ud83db"}`, `{"type":"a\ude00b"}`, "{\"type\":\"a\xffb\"}", `{"type":"\u0000\/\b"}`,
	`{"type":"X","timestamp":"2026-13-02T03:04:05Z"}`, `{"type":"X","timestamp":"\u0032026-01-02T03:04:05Z"}`,
	`{"type":"X","tool_calls":[{"id":"a","id":"b"}]}`, `{"type":"X","tool_calls":[{"ID":"a"}]}`, `{"type":"X","tool_calls":[{}, {"name":"n"}]}`,
	`{"type":"X","usage":{"input_tokens":1,"Input_tokens":2}}`, `{"type":"THOUGHT","usage":{"input_tokens":9,"output_tokens":3,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"reasoning_tokens":1}}`, `{"type":"X","exit_code":-1,"is_error":true,"sensitive":false}`,
	`{"type":"X","tool_args":{"a":[1,{"b":"\u00e9"}],"c":-1.5E+3}}`, `{"type":"X","tool_args":[01]}`, `{"type":"X","tool_args":{"a\"b":1}}`,
	`{"type":"X"} x`, `{"type":"X"}}`, `{"type":"X",}`, `{"type":"X" "seq":1}`, `[]`, `"s"`, ``, `{`, `{"type":"X","is_error":tru}`,
	`{"type":"X","content":"line
break"}`, `{"type":"X","exit_code":2147483648}`, `{"type":"X","iteration":-9223372036854775808}`,
}

// FuzzDecodeEvent holds the one-pass decoder to encoding/json: whenever it
// takes a line, encoding/json must accept it too and give the same event.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	full := fullEvent()
	line, _ := jsonl.Encode(&full)
	f.Add(line)
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Event
		took := decodeEvent(data, &fast)
		var want Event
		err := json.Unmarshal(data, &want)
		if !took {
			return
		}
		if err != nil {
			t.Fatalf("decodeEvent took %q, which encoding/json rejects: %v", data, err)
		}
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Fatalf("decodeEvent(%q) mismatch (-encoding/json +decodeEvent):\n%s", data, diff)
		}
	})
}

// TestParseLineFallsBack checks that what the fast decoder leaves is still
// decoded (or rejected) by encoding/json.
func TestParseLineFallsBack(t *testing.T) {
	ev, err := ParseLine([]byte(`{"TYPE":"THOUGHT","content":"a\ud83db","extra":{"x":1}}`))
	if err != nil || ev.Type != Thought || !strings.HasPrefix(ev.Content, "a\ufffd") {
		t.Errorf("ParseLine(fallback line) = %+v, %v; want a THOUGHT with a replaced surrogate", ev, err)
	}
	if _, err := ParseLine([]byte(`{"type":"X"} trailing`)); err == nil {
		t.Error("ParseLine(trailing garbage) succeeded, want an error")
	}
}

// TestPlainWord: plainWord passes a word exactly when each of its bytes
// is plain by strByte, wherever the one byte that is not sits.
func TestPlainWord(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			for _, fill := range []byte{'a', ' ', '~', '#', ']'} {
				word := bytes.Repeat([]byte{fill}, 8)
				word[pos] = byte(c)
				want := strByte[c] == 0
				if got := plainWord(binary.LittleEndian.Uint64(word)); got != want {
					t.Fatalf("plainWord(%q) = %v, want %v", word, got, want)
				}
			}
		}
	}
}

// TestKeySlots: every key of Event has a slot of its own (else change
// keyHash's multipliers: a key without one would be left to encoding/json).
func TestKeySlots(t *testing.T) {
	for i, k := range eventKeys {
		if got := keyIndex([]byte(k)); got != i {
			t.Errorf("keyIndex(%q) = %d, want %d", k, got, i)
		}
	}
	for _, k := range []string{"", "x", "types", "Type", "content_", "seq "} {
		if got := keyIndex([]byte(k)); got != -1 {
			t.Errorf("keyIndex(%q) = %d, want -1", k, got)
		}
	}
}

// TestPlainTimestamp: what plainTimestamp passes, time.Time's JSON
// decoding accepts; the Writer's own times pass.
func TestPlainTimestamp(t *testing.T) {
	now, _ := json.Marshal(time.Now().UTC())
	whole, _ := json.Marshal(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	if !plainTimestamp(now) || !plainTimestamp(whole) {
		t.Fatalf("plainTimestamp(%s), plainTimestamp(%s) = false, want true", now, whole)
	}
	base := []byte(`"2026-12-01T19:30:34.280656556Z"`)
	for i := 1; i < len(base)-1; i++ {
		for c := 0; c < 256; c++ {
			raw := bytes.Clone(base)
			raw[i] = byte(c)
			var tm time.Time
			if plainTimestamp(raw) && tm.UnmarshalJSON(raw) != nil {
				t.Fatalf("plainTimestamp(%s) = true, but UnmarshalJSON refuses it", raw)
			}
		}
	}
	for _, s := range []string{`"2026-02-29T00:00:00Z"`, `"2026-13-01T00:00:00Z"`, `"2026-00-01T00:00:00Z"`, `"2026-01-01T24:00:00Z"`,
		`"2026-01-01T00:00:00.Z"`, `"2026-01-01T00:00:00+01:00"`, `"2026-01-01T00:00:00.1234567890Z"`} {
		if plainTimestamp([]byte(s)) {
			t.Errorf("plainTimestamp(%s) = true, want false (left to UnmarshalJSON)", s)
		}
	}
}
