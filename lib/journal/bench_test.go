package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// BenchmarkScanFieldsConversation scans a 3,000-iteration run (a thought
// with a tool call, its request and its result per iteration, as
// delta-context's benchmark writes it) for the fields a conversation
// needs, as delta-context does.
func BenchmarkScanFieldsConversation(b *testing.B) {
	p := filepath.Join(b.TempDir(), "journal.jsonl")
	var buf bytes.Buffer
	seq := int64(0)
	add := func(e Event) {
		seq++
		e.Seq, e.Timestamp = seq, time.Now().UTC()
		line, err := jsonl.Encode(&e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
	}
	code := 0
	for it := 1; it <= 3000; it++ {
		id := fmt.Sprint("call_", it)
		args := fmt.Sprintf(`{"path":"src/file_%d.go","text":"step \"%d\""}`, it, it)
		add(Event{Type: Thought, Iteration: it, Content: "thinking about step " + id + " <with> & \"quotes\"",
			ToolCalls: []llm.ToolCall{{ID: id, Name: "write_file", Arguments: args}}, Usage: &llm.Usage{InputTokens: 1000 + int64(it), OutputTokens: 20},
			Model: "m", InvocationRef: "io/invocations/x_" + fmt.Sprint(it) + ".json"})
		add(Event{Type: ActionRequest, Iteration: it, CallID: id, ToolName: "write_file", ToolArgs: json.RawMessage(args)})
		add(Event{Type: ActionResult, Iteration: it, CallID: id, ToolName: "write_file",
			ObservationContent: "wrote src/file_" + fmt.Sprint(it) + ".go\n(12 lines)", ExitCode: &code, DurationMS: 3,
			ExecutionRef: "io/tool_executions/x_write_file_" + id})
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	fields := []string{"content", "tool_calls", "reasoning", "call_id", "tool_name", "observation_content", "is_error",
		"prompt", "response", "status", "agent_home", "work_dir", "config"}
	b.SetBytes(int64(buf.Len()))
	var start, end syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &start)
	for b.Loop() {
		n := 0
		if err := ScanFields(p, fields, func(*Event) error { n++; return nil }); err != nil || n != 9000 {
			b.Fatalf("ScanFields: %d events, %v", n, err)
		}
	}
	// CPU time (user + system) is steadier than wall time on a busy machine.
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &end)
	cpu := time.Duration(syscall.TimevalToNsec(end.Utime) + syscall.TimevalToNsec(end.Stime) -
		syscall.TimevalToNsec(start.Utime) - syscall.TimevalToNsec(start.Stime))
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
