package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// jailTools is echo confined by a sandbox that refuses every call; run
// outside it (escalated), a call succeeds and is counted.
type jailTools struct {
	echoTools
	outside atomic.Int32
}

func (t *jailTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	t.calls.Add(1)
	return ToolOutcome{IsError: true, ExitCode: 1, Observation: "touch: /etc/x: Permission denied", SandboxRefused: true}, nil
}

func (t *jailTools) Unsandboxed(name string) (Toolbox, bool) { return freeTools{t}, t.Has(name) }

// freeTools is jailTools outside the sandbox.
type freeTools struct{ *jailTools }

func (f freeTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	f.outside.Add(1)
	return ToolOutcome{Observation: "ran outside"}, nil
}

// escTurns is a turn whose one call the sandbox refuses, then the answer.
func escTurns() *scriptProvider {
	return &scriptProvider{turns: []llm.Response{{ToolCalls: []llm.ToolCall{call("c1", "echo", `{"text":"x"}`)}}, {Content: "done"}}}
}

// escEngine is an engine over the run in dir with journal j and tools.
func escEngine(dir string, j *FileJournal, p llm.Provider, tools Toolbox) *Engine {
	return &Engine{Run: RunInfo{RunID: "r1", RunDir: dir, JournalPath: filepath.Join(dir, "journal.jsonl")},
		Journal: j, Provider: p, Context: journalContext{j}, Tools: tools, Approvals: approval.ModeAsk, ApprovedBy: "alice"}
}

// answerAndResume answers the run's escalation (response.txt) and resumes
// it, until it ends; it returns the outcome and how many times it paused
// again.
func answerAndResume(t *testing.T, dir string, j *FileJournal, p llm.Provider, tools Toolbox, answer string) (Outcome, int) {
	t.Helper()
	for pauses := 0; ; pauses++ {
		if err := os.MkdirAll(filepath.Join(dir, runs.InteractionDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, runs.InteractionDir, runs.ResponseFile), []byte(answer+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := escEngine(dir, j, p, tools).Start(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != runs.WaitingForInput || pauses > 3 {
			return out, pauses
		}
		if out.Interaction.InputType != runs.InputEscalation {
			t.Fatalf("paused for %q, want an escalation", out.Interaction.InputType)
		}
	}
}

// lastResult is the observation the model got for call id: the last
// ACTION_RESULT of it.
func lastResult(t *testing.T, j Journal, id string) (obs string, results int) {
	t.Helper()
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Type == journal.ActionResult && ev.CallID == id {
			obs, results = ev.ObservationContent, results+1
		}
	}
	return obs, results
}

// TestEscalation: a refused call is asked about (a pause), runs once
// outside when approved and keeps its refusal when denied; with nobody to
// answer, or escalations off, nothing is asked.
func TestEscalation(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		set          func(e *Engine)
		pauses       int
		outside      int32
		want         string
	}{
		{"approved", "approved", nil, 1, 1, "ran outside"},
		{"denied", "denied: not there", nil, 1, 0, "Permission denied"},
		{"approvals deny", "approved", func(e *Engine) { e.Approvals = approval.ModeDeny }, 0, 0, "Permission denied"},
		{"escalate false", "approved", func(e *Engine) { e.NoEscalation = true }, 0, 0, "Permission denied"},
		{"interactive", "", func(e *Engine) { e.Interactive, e.Asker = true, &answerAsker{answer: "approve"} }, 0, 1, "ran outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := escTurns()
			e, j, _ := newEngine(t, p)
			tools := &jailTools{}
			e.Tools, e.Approvals, e.Message = tools, approval.ModeAsk, "task"
			if tc.set != nil {
				tc.set(e)
			}
			out, err := e.Start(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			pauses := 0
			if out.Status == runs.WaitingForInput {
				out, pauses = answerAndResume(t, e.Run.RunDir, j, p, tools, tc.answer)
				pauses++
			}
			obs, _ := lastResult(t, j, "c1")
			if out.Status != runs.Completed || pauses != tc.pauses || tools.outside.Load() != tc.outside || !strings.Contains(obs, tc.want) {
				t.Errorf("run = %s after %d pauses, ran outside %d times, the model saw %q; want COMPLETED after %d, %d, %q",
					out.Status, pauses, tools.outside.Load(), obs, tc.pauses, tc.outside, tc.want)
			}
			if tools.calls.Load() != 1 {
				t.Errorf("the confined call ran %d times, want 1", tools.calls.Load())
			}
		})
	}
}

// TestEscalationSurvivesACrashAnywhere: a run killed after any event of
// an approved escalation, resumed and answered, runs the call outside
// exactly once in all (a crash while it ran outside is reported, never
// run again) and never runs the confined call again.
func TestEscalationSurvivesACrashAnywhere(t *testing.T) {
	p := escTurns()
	e, j, _ := newEngine(t, p)
	e.Tools, e.Approvals = &jailTools{}, approval.ModeAsk
	if _, err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if out, _ := answerAndResume(t, e.Run.RunDir, j, p, e.Tools, "approved"); out.Status != runs.Completed {
		t.Fatalf("reference run = %s", out.Status)
	}
	events, _ := j.Events()
	first := -1
	for i, ev := range events {
		if ev.Type == journal.ActionResult && ev.SandboxRefused && first < 0 {
			first = i
		}
	}
	if first < 0 {
		t.Fatal("no refused ACTION_RESULT in the reference run")
	}
	for k := first + 1; k <= len(events); k++ {
		dir := t.TempDir()
		cut, err := OpenFileJournal(filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		ranBefore := int32(0)
		for _, ev := range events[:k] {
			ev := ev
			if ev.Type == journal.ActionRequest && ev.Unsandboxed {
				ranBefore = 1 // the killed run had started it outside
			}
			if err := cut.Append(&ev); err != nil {
				t.Fatal(err)
			}
		}
		tools := &jailTools{}
		out, pauses := answerAndResume(t, dir, cut, p, tools, "approved")
		cut.Close()
		if out.Status != runs.Completed || pauses > 0 || tools.calls.Load() != 0 || ranBefore+tools.outside.Load() != 1 {
			t.Errorf("killed after event %d (%s): resumed run %s, confined call ran again %d times, outside %d+%d times, %d pauses; want COMPLETED, 0, 1 in all, 0",
				k, events[k-1].Type, out.Status, tools.calls.Load(), ranBefore, tools.outside.Load(), pauses)
		}
	}
}

// TestCallerEscalates: delta mcp serve's Caller asks its client at once
// about a refused call (approved: the client gets the run outside's
// result); with nobody to ask the refusal stands.
func TestCallerEscalates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ask     Asker
		outside int32
		want    string
	}{
		{"approved", &answerAsker{answer: "approved"}, 1, "ran outside"},
		{"denied", &answerAsker{answer: "denied: no"}, 0, "Permission denied"},
		{"nobody to ask", nil, 0, "Permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, j, _ := newEngine(t, nil)
			tools := &jailTools{}
			e.Tools, e.Approvals, e.Run.Iteration = tools, approval.ModeAsk, 1
			out, err := NewCaller(e).Call(context.Background(), call("c1", "echo", `{"text":"x"}`), tc.ask)
			if err != nil {
				t.Fatal(err)
			}
			obs, results := lastResult(t, j, "c1")
			if tools.outside.Load() != tc.outside || !strings.Contains(out.Observation, tc.want) || !strings.Contains(obs, tc.want) {
				t.Errorf("Call() = %q (journal %q, %d results), ran outside %d times; want %q, %d", out.Observation, obs, results, tools.outside.Load(), tc.want, tc.outside)
			}
		})
	}
}
