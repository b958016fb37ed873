package subagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// parent makes a parent run p in a new workspace and its toolbox.
func parent(t *testing.T, sub *runs.Subagent) (*Toolbox, engine.RunInfo) {
	t.Helper()
	ws := t.TempDir()
	m := &runs.Metadata{RunID: "p", WorkDir: ws, Status: runs.Running, CreatedAt: time.Now().UTC(), Subagent: sub}
	if sub != nil {
		m.ParentRunID = "top"
	}
	dir, err := runs.Create(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	tb := New(context.Background(), Options{Run: m, RunDir: dir, Binary: "/nonexistent/delta-run",
		Config: agent.Subagents{Enabled: true, MaxDepth: 1, Agents: []agent.SubagentDir{{Name: ".", Path: ws}}}})
	t.Cleanup(func() { tb.Close() })
	return tb, engine.RunInfo{RunID: "p", RunDir: dir, WorkDir: ws}
}

// child makes a finished child run of p whose final answer is text.
func child(t *testing.T, ws, id string, status runs.Status, text string) {
	t.Helper()
	m := &runs.Metadata{RunID: id, ParentRunID: "p", WorkDir: ws, Status: status, CreatedAt: time.Now().UTC(), Subagent: &runs.Subagent{Depth: 1, MaxDepth: 1}}
	dir, err := runs.Create(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for i, ev := range []journal.Event{
		{Type: journal.EngineStart, RunID: id, ParentRunID: "p"},
		{Type: journal.UserMessage, Content: "task"},
		{Type: journal.Thought, Iteration: 1, Content: text},
		{Type: journal.EngineEnd, Status: string(status)},
	} {
		ev.Seq, ev.Timestamp = int64(i+1), time.Now().UTC()
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, data...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, runs.JournalFile), lines, 0o644); err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, tb *Toolbox, run engine.RunInfo, name, args string) engine.ToolOutcome {
	t.Helper()
	out, err := tb.Call(context.Background(), run, "call_1", name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", name, args, err)
	}
	return out
}

func TestWaitCutsLongResult(t *testing.T) {
	tb, run := parent(t, nil)
	long := "BEGIN " + strings.Repeat("word ", 10000) + " END"
	child(t, run.WorkDir, "p.sub1", runs.Completed, long)
	out := call(t, tb, run, tool.WaitName, `{"agent_id": "p.sub1"}`)
	if out.IsError {
		t.Fatalf("wait: error %s", out.Observation)
	}
	for _, want := range []string{"agent_id: p.sub1\nstatus: COMPLETED\nturns_used: 1\njournal: .delta/p.sub1/journal.jsonl\nsuccess: true\n\nBEGIN ", " END", "[WARNING: Tool output was truncated."} {
		if !strings.Contains(out.Observation, want) {
			t.Errorf("wait observation lacks %q", want)
		}
	}
	if n := len([]rune(out.Observation)); n > observe.SubagentLimits.MaxChars+1000 {
		t.Errorf("wait observation has %d characters, want about %d", n, observe.SubagentLimits.MaxChars)
	}
	path := regexp.MustCompile(`is in (\.delta/p/io/tool_executions/[^ ]*/result\.txt):`).FindStringSubmatch(out.Observation)
	if path == nil {
		t.Fatalf("wait observation names no result file:\n%.300s", out.Observation[20000:])
	}
	full, err := os.ReadFile(filepath.Join(run.WorkDir, path[1]))
	if err != nil || string(full) != long {
		t.Errorf("%s holds %d bytes (%v), want the whole result (%d bytes)", path[1], len(full), err, len(long))
	}
	if out.RecordPath == "" {
		t.Errorf("wait wrote no io/tool_executions record")
	}
}

func TestWaitShortAndStates(t *testing.T) {
	tb, run := parent(t, nil)
	child(t, run.WorkDir, "p.sub1", runs.Completed, "42")
	child(t, run.WorkDir, "p.sub2", runs.Interrupted, "")
	out := call(t, tb, run, tool.WaitName, `{"agent_id": "p.sub1", "timeout_ms": 10}`)
	if !strings.HasSuffix(out.Observation, "success: true\n\n42") || strings.Contains(out.Observation, "WARNING") {
		t.Errorf("wait p.sub1 = %q, want the whole result 42", out.Observation)
	}
	out = call(t, tb, run, tool.WaitName, `{"agent_id": "p.sub2"}`)
	if !strings.Contains(out.Observation, "status: INTERRUPTED") || !strings.Contains(out.Observation, "send_input continues it") {
		t.Errorf("wait p.sub2 = %q, want INTERRUPTED and how to go on", out.Observation)
	}
	out = call(t, tb, run, tool.CloseAgentName, `{"agent_id": "p.sub1"}`)
	if out.IsError || !strings.Contains(out.Observation, "status: COMPLETED\nIt was not running.") {
		t.Errorf("close_agent of a finished child = %q", out.Observation)
	}
}

func TestRefusals(t *testing.T) {
	tb, run := parent(t, nil)
	child(t, run.WorkDir, "p.sub1", runs.Completed, "x")
	deep, deepRun := parent(t, &runs.Subagent{Depth: 1, MaxDepth: 1})
	tests := []struct {
		tb         *Toolbox
		run        engine.RunInfo
		name, args string
		want       string
	}{
		{deep, deepRun, tool.SpawnAgentName, `{"task": "more"}`, "subagent depth limit reached: this run is a subagent at depth 1 and subagents.max_depth is 1"},
		{tb, run, tool.SpawnAgentName, `{"task": "x", "agent": "elsewhere"}`, `agent "elsewhere" is not one this run may spawn (subagents.agents: ".")`},
		{tb, run, tool.SpawnAgentName, `{"task": "x", "working_dir": "../out"}`, "working_dir must stay inside the workspace"},
		{tb, run, tool.SpawnAgentName, `{"task": "x", "working_dir": ".delta"}`, "working_dir must not be inside .delta"},
		{tb, run, tool.SpawnAgentName, `{"task": " "}`, "task is empty"},
		{tb, run, tool.SpawnAgentName, `{"task": "x", "max_turns": 0}`, "max_turns must be at least 1"},
		{tb, run, tool.SpawnAgentName, `{"tsk": "x"}`, `bad arguments: json: unknown field "tsk"`},
		{tb, run, tool.WaitName, `{"agent_id": "p.sub9"}`, `no subagent "p.sub9" of this run (its subagents: p.sub1)`},
		{tb, run, tool.WaitName, `{"agent_id": "p"}`, `no subagent "p" of this run`},
		{tb, run, tool.WaitName, `{"agent_id": "../x"}`, `no subagent "../x"`},
		{tb, run, tool.SendInputName, `{"agent_id": "p.sub1", "message": ""}`, "message is empty"},
		{deep, deepRun, tool.CloseAgentName, `{"agent_id": "p.sub1"}`, `no subagent "p.sub1": this run has spawned none`},
	}
	for _, tc := range tests {
		out := call(t, tc.tb, tc.run, tc.name, tc.args)
		if !out.IsError || !strings.Contains(out.Observation, tc.want) {
			t.Errorf("%s(%s) = %q (error %v), want an error containing %q", tc.name, tc.args, out.Observation, out.IsError, tc.want)
		}
	}
}

func TestDepth(t *testing.T) {
	cfg := agent.Subagents{MaxDepth: 3}
	for _, tc := range []struct {
		sub          *runs.Subagent
		depth, limit int
	}{
		{nil, 0, 3},
		{&runs.Subagent{Depth: 1, MaxDepth: 2}, 1, 2}, // the inherited limit is lower
		{&runs.Subagent{Depth: 1, MaxDepth: 5}, 1, 3}, // never raised by the parent
	} {
		d, l := Depth(&runs.Metadata{Subagent: tc.sub}, cfg)
		if d != tc.depth || l != tc.limit {
			t.Errorf("Depth(%+v) = %d, %d, want %d, %d", tc.sub, d, l, tc.depth, tc.limit)
		}
	}
}

func TestSpecs(t *testing.T) {
	tb, _ := parent(t, nil)
	var names []string
	for _, s := range tb.Specs() {
		names = append(names, s.Name)
		if !json.Valid(s.Parameters) {
			t.Errorf("%s: parameters are not JSON", s.Name)
		}
	}
	if strings.Join(names, " ") != "spawn_agent send_input wait close_agent" {
		t.Errorf("Specs names = %v", names)
	}
}

// TestModelOverride: spawn_agent's model is a model of the child's
// provider, or names its provider (PROVIDER/MODEL, an alias) as --llm does.
func TestModelOverride(t *testing.T) {
	openai := &agent.Agent{Name: "c", LLM: agent.LLMConfig{Provider: "openai", Model: "gpt-4o"}}
	scripted := &agent.Agent{Name: "s", LLM: agent.LLMConfig{Provider: "scripted"}}
	for _, tc := range []struct {
		parentLLM, model string
		child            *agent.Agent
		want, wantErr    string
	}{
		{"", "", openai, "", ""},
		{"anthropic:claude-x", "", openai, "anthropic:claude-x", ""},
		{"", "gpt-4o-mini", openai, "openai:gpt-4o-mini", ""},
		{"anthropic:claude-x", "claude-y", openai, "anthropic:claude-y", ""},
		{"", "haiku", openai, "anthropic:claude-haiku-4-5", ""},
		{"", "anthropic/claude-haiku-4-5", openai, "anthropic:claude-haiku-4-5", ""},
		{"", "openai:meta-llama/llama-3", openai, "openai:meta-llama/llama-3", ""},
		{"", "gpt-4o", scripted, "", "replays a script"},
	} {
		tb := &Toolbox{o: Options{LLM: tc.parentLLM}}
		got, err := tb.llmFor(tc.child, tc.model)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("llmFor(%q) with --llm %q = %q, %v; want an error containing %q", tc.model, tc.parentLLM, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("llmFor(%q) with --llm %q = %q, %v; want %q", tc.model, tc.parentLLM, got, err, tc.want)
		}
	}
}
