package journal

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/jsonl"
)

// FuzzParse feeds arbitrary journal files to the parser: it must never
// panic, what it accepts must survive a re-encode unchanged in number, and
// a torn fragment appended to a good journal must never make it unreadable.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", l1, l1 + l2, l1 + `{"type":"THOU`, l1 + "\x00\x00\n", "garbage\n" + l1,
		l1 + "\n\n" + l2, `{"type":"X","seq":"nope"}` + "\n", `{"type":"ACTION_RESULT","exit_code":0}`,
		`[1,2]` + "\n", `{"type":"THOUGHT","tool_calls":[{"id":"c1"}]}` + "\n" + `{"ty`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, torn, err := parse(data)
		if err != nil {
			return
		}
		if len(torn) > 0 && !bytes.HasSuffix(data, torn) {
			t.Fatalf("torn %q is not a suffix of the input", torn)
		}
		var buf bytes.Buffer
		for i := range events {
			line, err := jsonl.Encode(&events[i])
			if err != nil {
				t.Fatalf("re-encode event %d: %v", i, err)
			}
			buf.Write(line)
		}
		clean := buf.Len()
		again, torn2, err := parse(buf.Bytes())
		if err != nil || len(again) != len(events) || len(torn2) != 0 {
			t.Fatalf("re-parse: %d events, torn %q, %v; want %d events", len(again), torn2, err, len(events))
		}
		buf.WriteString(`{"type":"THOUGHT","content":"cut off`)
		again, torn2, err = parse(buf.Bytes())
		if err != nil || len(again) != len(events) || len(torn2) != buf.Len()-clean {
			t.Fatalf("torn append: %d events, torn %q, %v", len(again), torn2, err)
		}
	})
}
