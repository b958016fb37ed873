package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	l1 = `{"type":"ENGINE_START","seq":1,"timestamp":"2026-01-02T03:04:05Z","run_id":"r"}` + "\n"
	l2 = `{"type":"USER_MESSAGE","seq":2,"timestamp":"2026-01-02T03:04:06Z","content":"hi"}` + "\n"
)

func TestReadFile(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantSeqs []int64
		wantTorn string
		wantErr  error
	}{
		{"empty", "", []int64{}, "", nil},
		{"clean", l1 + l2, []int64{1, 2}, "", nil},
		{"torn: no newline", l1 + l2 + `{"type":"THOU`, []int64{1, 2}, `{"type":"THOU`, nil},
		{"torn: complete JSON without newline", l1 + strings.TrimSuffix(l2, "\n"), []int64{1}, strings.TrimSuffix(l2, "\n"), nil},
		{"torn: NUL bytes after a crash", l1 + "\x00\x00\x00\n", []int64{1}, "\x00\x00\x00\n", nil},
		{"blank lines skipped", l1 + "\n  \n" + l2, []int64{1, 2}, "", nil},
		{"corrupt middle line", l1 + "garbage\n" + l2, nil, "", ErrCorrupt},
		{"event without type", `{"seq":1}` + "\n" + l2, nil, "", ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, tt.content)
			events, err := ReadFile(p)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ReadFile() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			seqs := []int64{}
			for _, e := range events {
				seqs = append(seqs, e.Seq)
			}
			if diff := cmp.Diff(tt.wantSeqs, seqs); diff != "" {
				t.Errorf("ReadFile() seqs (-want +got):\n%s", diff)
			}
			torn, err := Check(p)
			if err != nil || string(torn) != tt.wantTorn {
				t.Errorf("Check() = %q, %v; want %q, nil", torn, err, tt.wantTorn)
			}
		})
	}
}

func TestReadFileNamesCorruptLine(t *testing.T) {
	p := writeFile(t, l1+l2+"{not json\n"+l2)
	_, err := ReadFile(p)
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("ReadFile() error = %v, want one naming line 3", err)
	}
}

func TestAppendAndResume(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	w, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	local := time.Date(2026, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))
	events := []*Event{
		{Type: EngineStart, RunID: "r1"},
		{Type: UserMessage, Content: "<b>&</b>", Timestamp: local},
	}
	for _, e := range events {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if events[0].Seq != 1 || events[1].Seq != 2 || events[0].Timestamp.IsZero() {
		t.Errorf("Append set seq %d, %d and timestamp %v", events[0].Seq, events[1].Seq, events[0].Timestamp)
	}
	if err := w.Append(&Event{Type: Thought, Seq: 2}); err == nil {
		t.Error("Append with a seq not after the last one succeeded")
	}
	if err := w.Append(&Event{}); err == nil {
		t.Error("Append of an event without type succeeded")
	}
	w.Close()

	w, err = Open(p) // a resume continues the numbering
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(&Event{Type: EngineEnd, Status: "COMPLETED"}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `"content":"<b>&</b>"`) || !strings.Contains(string(data), `"timestamp":"2026-05-06T06:08:09Z"`) {
		t.Errorf("journal lacks unescaped content or UTC timestamp:\n%s", data)
	}
	got, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Type{EngineStart, UserMessage, EngineEnd}
	var types []Type
	for i, e := range got {
		types = append(types, e.Type)
		if e.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
	}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
}

func TestOpenRefusesTornThenRepair(t *testing.T) {
	torn := `{"type":"THOUGHT","seq":3,"conte`
	p := writeFile(t, l1+l2+torn)
	if _, err := Open(p); !errors.Is(err, ErrTornTail) {
		t.Fatalf("Open(torn) error = %v, want ErrTornTail", err)
	}
	saved, err := Repair(p)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(saved); string(data) != torn {
		t.Errorf("saved torn tail = %q, want %q", data, torn)
	}
	if !strings.HasPrefix(filepath.Base(saved), "journal.jsonl.torn-") || filepath.Dir(saved) != filepath.Dir(p) {
		t.Errorf("torn tail saved to %s, want journal.jsonl.torn-* beside the journal", saved)
	}
	if data, _ := os.ReadFile(p); string(data) != l1+l2 {
		t.Errorf("repaired journal = %q", data)
	}
	if again, err := Repair(p); again != "" || err != nil {
		t.Errorf("Repair(clean) = %q, %v; want no-op", again, err)
	}
	w, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.LastSeq() != 2 {
		t.Errorf("LastSeq() = %d, want 2", w.LastSeq())
	}
}

func TestRepairRefusesCorrupt(t *testing.T) {
	p := writeFile(t, "bad\n"+l1+"torn")
	if _, err := Repair(p); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Repair(corrupt) error = %v, want ErrCorrupt", err)
	}
}

// TestReadWhileWriting: a reader never sees an error or a partial event
// while the writer appends.
func TestReadWhileWriting(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal.jsonl")
	w, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 300
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range n {
			if err := w.Append(&Event{Type: SystemMessage, Content: strings.Repeat("x", 5000)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := 0
	for last < n {
		events, err := ReadFile(p)
		if err != nil {
			t.Fatalf("ReadFile during writes: %v", err)
		}
		if len(events) < last {
			t.Fatalf("events went from %d to %d", last, len(events))
		}
		for i, e := range events {
			if e.Seq != int64(i+1) || len(e.Content) != 5000 {
				t.Fatalf("event %d: seq %d, %d bytes of content", i, e.Seq, len(e.Content))
			}
		}
		last = len(events)
	}
	wg.Wait()
}

// TestSeqInvariant: a journal whose lines were duplicated, deleted,
// reordered or added in the middle is refused, naming the line and the
// fault; a clean journal and one written before seq existed read.
func TestSeqInvariant(t *testing.T) {
	line := func(seq int) string {
		if seq == 0 {
			return `{"type":"SYSTEM_MESSAGE","content":"x"}` + "\n"
		}
		return fmt.Sprintf(`{"type":"SYSTEM_MESSAGE","seq":%d,"content":"x"}`, seq) + "\n"
	}
	journal := func(seqs ...int) string {
		var b strings.Builder
		for _, s := range seqs {
			b.WriteString(line(s))
		}
		return b.String()
	}
	tests := []struct {
		name, data string
		want       string // "" for no error
	}{
		{"clean", journal(1, 2, 3, 4), ""},
		{"no seq at all (written before seq)", journal(0, 0, 0), ""},
		{"duplicated line", journal(1, 2, 2, 3), "line 3: seq 2 appears twice (a duplicated line)"},
		{"deleted line", journal(1, 2, 4, 5), "line 3: seq 4 follows seq 2: seq 3 is missing (a deleted line)"},
		{"deleted lines", journal(1, 5, 6), "line 2: seq 5 follows seq 1: seq 2 to 4 are missing"},
		{"reordered lines", journal(1, 3, 2, 4), "line 2: seq 3 follows seq 1"},
		{"added line", journal(1, 2, 1, 3), "line 3: seq 1 comes after seq 2 (lines out of order, or a line added)"},
		{"first line not seq 1", journal(2, 3), "line 1: seq 2 follows seq 0: seq 1 is missing"},
		{"seq lost in the middle", journal(1, 0, 2), "line 2: the event has no seq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse([]byte(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Errorf("Parse() error = %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error = %v, want ErrCorrupt containing %q", err, tt.want)
			}
		})
	}
	// A torn last line stays the one thing repaired, seq or not.
	events, torn, err := Parse([]byte(journal(1, 2) + `{"type":"SYSTEM_MESS`))
	if err != nil || len(events) != 2 || len(torn) == 0 {
		t.Errorf("Parse(torn tail) = %d events, torn %q, %v; want 2 events and the tail", len(events), torn, err)
	}
}
