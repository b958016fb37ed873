package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// BenchmarkCommand10kEvents runs the delta-context binary, as a user
// does, on a run whose journal holds 10,000 events (3,333 iterations of a
// thought, a tool call and its result): process start, finding the run,
// reading the journal, rebuilding the conversation and printing it. It
// also reports the command's CPU time (user + system).
func BenchmarkCommand10kEvents(b *testing.B) {
	bin := filepath.Join(clitest.BinDir(b), "delta-context")
	ws := bigRun(b)
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "-w", ws)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("delta-context: %v", err)
		}
		if len(out) < 1<<20 {
			b.Fatalf("delta-context printed %d bytes, want the whole conversation", len(out))
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	// CPU time is steadier than wall time on a busy machine.
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// bigRun writes an agent and a workspace with one 10,000-event run and
// returns the workspace.
func bigRun(b *testing.B) string {
	b.Helper()
	home, ws := b.TempDir(), b.TempDir()
	files := map[string]string{
		"agent.yaml":       "name: big\nllm:\n  model: m\n",
		"system_prompt.md": "You are a test agent.\n",
		"context.yaml":     "sources:\n  - type: file\n    id: system_prompt\n    path: '${AGENT_HOME}/system_prompt.md'\n  - type: journal\n    id: conversation\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	runDir := filepath.Join(ws, ".delta", "big")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		b.Fatal(err)
	}
	w, err := journal.Open(filepath.Join(runDir, "journal.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	add := func(ev journal.Event) {
		if _, err := w.Write(&ev); err != nil {
			b.Fatal(err)
		}
	}
	add(journal.Event{Type: journal.EngineStart, RunID: "big", AgentHome: home, WorkDir: ws})
	add(journal.Event{Type: journal.UserMessage, Content: "a long task"})
	for it := 1; it <= 3333; it++ {
		id := fmt.Sprint("call_", it)
		args := fmt.Sprintf(`{"path":"src/file_%d.go","text":"step \"%d\""}`, it, it)
		add(journal.Event{Type: journal.Thought, Iteration: it, Content: "thinking about step " + id + " <with> & \"quotes\"",
			ToolCalls: []llm.ToolCall{{ID: id, Name: "write_file", Arguments: args}}, Usage: &llm.Usage{InputTokens: 1000 + int64(it), OutputTokens: 20},
			Model: "m", InvocationRef: "io/invocations/x_" + fmt.Sprint(it) + ".json"})
		add(journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: id, ToolName: "write_file", ToolArgs: json.RawMessage(args)})
		code := 0
		add(journal.Event{Type: journal.ActionResult, Iteration: it, CallID: id, ToolName: "write_file",
			ObservationContent: "wrote src/file_" + fmt.Sprint(it) + ".go\n(12 lines)", ExitCode: &code, DurationMS: 3,
			ExecutionRef: "io/tool_executions/x_write_file_" + id})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	// delta-context takes the latest run by its metadata, as continue
	// --last does.
	m := &runs.Metadata{RunID: "big", Status: runs.Completed, CreatedAt: time.Now().UTC(), AgentHome: home, WorkDir: ws}
	if err := runs.WriteMetadata(runDir, m); err != nil {
		b.Fatal(err)
	}
	return ws
}
