package journal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/jsonl"
	"github.com/deltakit/delta/lib/llm"
)

// TestScanFieldsSharedStrings: the strings ScanFields makes in shared
// buffers are Scan's, kept by fn across many events, when the decoded
// text fills several buffers, when one string is longer than a buffer,
// and for plain, escaped and non-ASCII text.
func TestScanFieldsSharedStrings(t *testing.T) {
	var buf bytes.Buffer
	add := func(e Event) {
		e.Seq = int64(bytes.Count(buf.Bytes(), []byte{'\n'}) + 1)
		line, err := jsonl.Encode(&e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
	}
	add(Event{Type: UserMessage, Content: strings.Repeat("long \"quoted\"\n", 5000)}) // 70 KB: over a buffer
	for i := range 3000 {
		add(Event{Type: Thought, Content: fmt.Sprintf("step %d: \"why\"\tné", i), Model: "m",
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", i), Name: "write_file", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)}}})
		add(Event{Type: ActionResult, CallID: fmt.Sprint("c", i), ObservationContent: fmt.Sprint("plain ", i), IsError: i%7 == 0})
	}
	add(Event{Type: SystemMessage, Content: ""})
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var full, some []Event
	if err := Scan(path, func(e *Event) error { full = append(full, kept(*e)); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := ScanFields(path, someFields, func(e *Event) error { some = append(some, kept(*e)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(some) != 6002 || !reflect.DeepEqual(some, full) {
		t.Fatalf("ScanFields kept %d events unlike Scan's %d (first: %+v, Scan's %+v)", len(some), len(full), some[:1], full[:1])
	}
}

// TestEachEventLines: the line loop's edge cases, as ReadFile and
// ScanFields see them: an empty file, one line with and without its
// newline, blank lines with spaces, a torn tail after a blank line, a bad
// line followed by blank lines only (torn) and by a good one (corrupt).
func TestEachEventLines(t *testing.T) {
	const l3 = `{"type":"THOUGHT","seq":3,"content":"c"}`
	for _, tt := range []struct {
		data   string
		events int
		torn   string
		err    bool
	}{
		{"", 0, "", false},
		{l1, 1, "", false},
		{strings.TrimSuffix(l1, "\n"), 0, strings.TrimSuffix(l1, "\n"), false},
		{l1 + " \t\n\n" + l2, 2, "", false},
		{l1 + "\n" + `{"type":"TH`, 1, `{"type":"TH`, false},
		{l1 + l2 + "{bad}\n \n", 2, "{bad}\n \n", false},
		{l1 + "{bad}\n" + l3 + "\n", 0, "", true},
		{l1 + l3 + "\n", 0, "", true}, // seq 3 after 1
	} {
		events, torn, err := Parse([]byte(tt.data))
		if len(events) != tt.events || string(torn) != tt.torn || (err != nil) != tt.err {
			t.Errorf("Parse(%q) = %d events, torn %q, %v; want %d, %q, error %v", tt.data, len(events), torn, err, tt.events, tt.torn, tt.err)
		}
		path := filepath.Join(t.TempDir(), "journal.jsonl")
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		err = ScanFields(path, someFields, func(*Event) error { n++; return nil })
		if (err != nil) != tt.err || !tt.err && n != tt.events {
			t.Errorf("ScanFields(%q) = %d events, %v; want %d, error %v", tt.data, n, err, tt.events, tt.err)
		}
	}
}

// FuzzDecodeShared holds the decoder with shared strings (ScanFields') to
// the one that makes each string apart: it takes the same lines and gives
// the same events.
func FuzzDecodeShared(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	full := fullEvent()
	line, _ := jsonl.Encode(&full)
	f.Add(line)
	f.Fuzz(func(t *testing.T, data []byte) {
		var apart, shared Event
		tookApart := decodeEvent(data, &apart)
		data = bytes.Clone(data) // shared strings view their line, which is never changed
		tookShared := decodeFields(data, &shared, 0, &sharedStrings{})
		if tookApart != tookShared {
			t.Fatalf("decodeEvent took %q: %v, with shared strings: %v", data, tookApart, tookShared)
		}
		if tookApart && !reflect.DeepEqual(apart, shared) {
			t.Fatalf("on %q: shared strings gave\n%+v\nwant\n%+v", data, shared, apart)
		}
	})
}

// TestSpecialBytesFirst: the lowest byte specialBytes flags is the first
// byte of the word that does not stand for itself (strByte), for every
// byte value at every position, behind plain bytes and before any.
func TestSpecialBytesFirst(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			for _, after := range []byte{'a', '"', 0x01, 0xff} {
				word := []byte("abcdefgh")
				word[pos] = byte(c)
				for k := pos + 1; k < 8; k++ {
					word[k] = after
				}
				want := 8
				for k, b := range word {
					if strByte[b] != 0 {
						want = k
						break
					}
				}
				got := 8
				if m := specialBytes(binary.LittleEndian.Uint64(word)); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("specialBytes(%q) flags byte %d first, want %d", word, got, want)
				}
			}
		}
	}
}
