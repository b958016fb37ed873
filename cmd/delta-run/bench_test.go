package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
)

// inProcessTools answers every call at once, so a benchmark measures the
// engine rather than process start-up.
type inProcessTools struct{}

func (inProcessTools) Specs() []llm.ToolSpec {
	return []llm.ToolSpec{{Name: "note", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (inProcessTools) Has(name string) bool { return name == "note" }
func (inProcessTools) Call(context.Context, engine.RunInfo, string, string, json.RawMessage) (engine.ToolOutcome, error) {
	return engine.ToolOutcome{Observation: "noted"}, nil
}
func (inProcessTools) Close() error { return nil }

// benchRun prepares a run directory and loaded agent.
func benchRun(b *testing.B, yaml string) (*agent.Agent, string, string) {
	b.Helper()
	dir := writeAgent(b, yaml, nil)
	a, err := agent.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	return a, ws, dir
}

// BenchmarkLoop300Iterations runs a 300-iteration run against the fake
// OpenAI server (HTTP, JSON, the real provider, the real contextgen over a
// growing journal) and reports the engine's time per iteration. The
// in-process variant answers tool calls at once (the engine alone); the
// command variant runs every call as the agent's `exec: "true ${n}"` tool
// through the real command path (execute.Run, delta-exec-guard, io
// records), which is what a user's run pays; both update metadata.json's
// iteration count as delta-run does, and report the journal's fsyncs per
// iteration.
func BenchmarkLoop300Iterations(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		benchLoop(b, "note", func(*agent.Agent) engine.Toolbox { return inProcessTools{} })
	})
	b.Run("command", func(b *testing.B) {
		b.Setenv("PATH", clitest.BinDir(b)+":"+os.Getenv("PATH")) // delta-exec-guard
		benchLoop(b, "t", func(a *agent.Agent) engine.Toolbox { return engine.NewCommandTools(a, os.Environ()) })
	})
}

func benchLoop(b *testing.B, toolName string, tools func(*agent.Agent) engine.Toolbox) {
	const iterations = 300
	srv := llmtest.NewServer(b)
	a, ws, _ := benchRun(b, "llm:\n  model: bench\ntools:\n  - name: t\n    exec: \"true ${n}\"\n")
	a.LLM.BaseURL = srv.URL
	prov, err := provider.New(a.LLM, map[string]string{"DELTA_API_KEY": "k", "DELTA_BASE_URL": srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for n := 1; n < iterations; n++ {
			srv.ReplyToolCalls(llm.ToolCall{Name: toolName, Arguments: fmt.Sprintf(`{"n":"%d"}`, n)})
		}
		srv.ReplyText("done")
		id := fmt.Sprint("bench", i)
		runDir, err := runs.Create(ws, &runs.Metadata{RunID: id, Status: runs.Running, AgentHome: a.Home, WorkDir: ws, MaxIterations: iterations})
		if err != nil {
			b.Fatal(err)
		}
		j, err := engine.OpenFileJournal(filepath.Join(runDir, runs.JournalFile))
		if err != nil {
			b.Fatal(err)
		}
		meta := &runs.Metadata{RunID: id, Status: runs.Running, AgentHome: a.Home, WorkDir: ws, MaxIterations: iterations}
		progress := &iterationUpdates{runDir: runDir, meta: meta}
		e := &engine.Engine{Run: engine.RunInfo{RunID: id, RunDir: runDir, JournalPath: filepath.Join(runDir, runs.JournalFile),
			AgentHome: a.Home, WorkDir: ws, Agent: a}, Journal: j, Provider: prov, Context: contextgen.New(),
			Tools: tools(a), Params: provider.ParamsOf(a.LLM), MaxIterations: iterations, Message: "go", LoopWindow: -1,
			OnIteration: func(it int) { _ = progress.update(it) }}
		b.StartTimer()
		start := time.Now()
		out, err := e.Start(context.Background(), nil)
		elapsed := time.Since(start)
		b.StopTimer()
		syncs := j.Syncs()
		j.Close()
		if err != nil || out.Status != runs.Completed || out.Iterations != iterations {
			b.Fatalf("run = %+v, %v", out, err)
		}
		b.ReportMetric(float64(elapsed.Microseconds())/iterations, "µs/iteration")
		b.ReportMetric(float64(syncs)/iterations, "fsyncs/iteration")
		b.StartTimer()
	}
}

// BenchmarkContextFrom10kEvents rebuilds the model context from a
// 10,000-event journal through the real contextgen, as every iteration of a
// long run does.
func BenchmarkContextFrom10kEvents(b *testing.B) {
	a, ws, _ := benchRun(b, "")
	runDir, err := runs.Create(ws, &runs.Metadata{RunID: "big", Status: runs.Running, WorkDir: ws})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(runDir, runs.JournalFile)
	j, err := engine.OpenFileJournal(path)
	if err != nil {
		b.Fatal(err)
	}
	add := func(ev journal.Event) {
		if err := j.Append(&ev); err != nil {
			b.Fatal(err)
		}
	}
	add(journal.Event{Type: journal.EngineStart, RunID: "big"})
	add(journal.Event{Type: journal.UserMessage, Content: "a long task"})
	for it := 1; it <= 3333; it++ {
		id := fmt.Sprint("c", it)
		add(journal.Event{Type: journal.Thought, Iteration: it, Content: "thinking about step " + id,
			ToolCalls: []llm.ToolCall{{ID: id, Name: "note", Arguments: `{"text":"step"}`}}, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 2}})
		add(journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: id, ToolName: "note", ToolArgs: json.RawMessage(`{"text":"step"}`)})
		code := 0
		add(journal.Event{Type: journal.ActionResult, Iteration: it, CallID: id, ToolName: "note", ObservationContent: "noted: step " + id, ExitCode: &code})
	}
	j.Close()
	run := engine.RunInfo{RunID: "big", RunDir: runDir, JournalPath: path, AgentHome: a.Home, WorkDir: ws, Agent: a}
	cb := contextgen.New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msgs, err := cb.Build(context.Background(), run)
		if err != nil {
			b.Fatal(err)
		}
		if len(msgs) < 6000 {
			b.Fatalf("%d messages", len(msgs))
		}
	}
}
