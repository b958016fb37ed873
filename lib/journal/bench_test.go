package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/jsonl"
	"github.com/deltakit/delta/lib/llm"
)

// BenchmarkReadFile10k reads a journal of 10,000 mixed events.
func BenchmarkReadFile10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "journal.jsonl")
	var buf bytes.Buffer // written in one go: 10,000 synced appends would take long
	code := 0
	for i := range 10000 {
		var e Event
		switch i % 3 {
		case 0:
			e = Event{Type: Thought, Iteration: i, Content: "thinking about the next step", Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 50}}
		case 1:
			e = Event{Type: ActionRequest, Iteration: i, CallID: "call_1", ToolName: "shell", ToolArgs: json.RawMessage(`{"cmd":"ls -la"}`)}
		default:
			e = Event{Type: ActionResult, Iteration: i, CallID: "call_1", ToolName: "shell", ObservationContent: strings.Repeat("file.txt\n", 30), ExitCode: &code}
		}
		e.Seq, e.Timestamp = int64(i+1), time.Now().UTC()
		line, err := jsonl.Encode(&e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		events, err := ReadFile(p)
		if err != nil || len(events) != 10000 {
			b.Fatalf("ReadFile: %d events, %v", len(events), err)
		}
	}
}

// BenchmarkAppend measures one synced append.
func BenchmarkAppend(b *testing.B) {
	w, err := Open(filepath.Join(b.TempDir(), "journal.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if err := w.Append(&Event{Type: SystemMessage, Content: "hello"}); err != nil {
			b.Fatal(err)
		}
	}
}
