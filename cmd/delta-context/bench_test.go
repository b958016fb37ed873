package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cli"
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
	ws := bigRun(b, 3333)
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

// bigRun writes an agent and a workspace with one run of the given
// iterations (a thought, a tool call and its result each, and a warning
// every 10 iterations) and returns the workspace. The run is the same at
// every call but for the events' timestamps.
func bigRun(b testing.TB, iterations int) string {
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
	for it := 1; it <= iterations; it++ {
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
		if it%10 == 0 {
			add(journal.Event{Type: journal.SystemMessage, Iteration: it, Content: fmt.Sprintf("warning: %d%% of the context window used", it/100)})
		}
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

// BenchmarkContextVsMinimal runs delta-context, built as make build builds
// it, on a 3,000-iteration run (about 9,300 events, a 2.6 MB journal,
// about 1 MB of context out), alternating with a minimal Go program (a
// hello-world built the same way), and reports both and their ratio, in
// wall time (x-minimal) and in CPU time (x-minimal-cpu, user + system).
// The machine's load weighs on both programs alike, but not equally on
// wall time: on a busy machine a short program's wall time is mostly
// waiting to be scheduled, which flatters the ratio. The CPU-time ratio
// holds steady from an idle machine to a loaded one.
func BenchmarkContextVsMinimal(b *testing.B) {
	bin := clitest.ReleaseBinary(b, "./cmd/delta-context")
	hello := clitest.Hello(b)
	ws := bigRun(b, 3000)
	var ctxTime, minimal, ctxCPU, minimalCPU time.Duration
	cpu := func(c *exec.Cmd) time.Duration { return c.ProcessState.UserTime() + c.ProcessState.SystemTime() }
	var out int
	for b.Loop() {
		t0 := time.Now()
		h := exec.Command(hello)
		if err := h.Run(); err != nil {
			b.Fatalf("hello: %v", err)
		}
		t1 := time.Now()
		c := exec.Command(bin, "-w", ws)
		data, err := c.Output()
		if err != nil {
			b.Fatalf("delta-context: %v", err)
		}
		ctxTime, minimal = ctxTime+time.Since(t1), minimal+t1.Sub(t0)
		ctxCPU, minimalCPU = ctxCPU+cpu(c), minimalCPU+cpu(h)
		out = len(data)
	}
	if out < 900<<10 {
		b.Fatalf("delta-context printed %d bytes, want the whole conversation", out)
	}
	n := float64(b.N)
	b.ReportMetric(float64(ctxTime.Microseconds())/1e3/n, "context-ms/op")
	b.ReportMetric(float64(minimal.Microseconds())/1e3/n, "minimal-ms/op")
	b.ReportMetric(float64(ctxTime)/float64(minimal), "x-minimal")
	b.ReportMetric(float64(ctxCPU)/float64(minimalCPU), "x-minimal-cpu")
}

// BenchmarkShowInProcess builds and prints the context of the
// 3,000-iteration run in the test process, for profiling (-cpuprofile):
// finding and decoding the run, converting it and printing it.
func BenchmarkShowInProcess(b *testing.B) {
	ws := bigRun(b, 3000)
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := cli.Run("delta-context", &CLI{}, []string{"-w", ws}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
			b.Fatalf("delta-context exited %d: %s", code, errOut.String())
		}
		if out.Len() < 900<<10 {
			b.Fatalf("delta-context printed %d bytes, want the whole conversation", out.Len())
		}
	}
}
