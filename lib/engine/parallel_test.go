package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// meetingTools has two tools: "signal" closes a channel; "await" waits
// for it. Run one after the other in the order await, signal, they could
// never meet: await would give up (after a generous wait) with an error.
type meetingTools struct {
	once   sync.Once
	met    chan struct{}
	finish []string
	mu     sync.Mutex
}

func newMeetingTools() *meetingTools { return &meetingTools{met: make(chan struct{})} }

func (t *meetingTools) Specs() []llm.ToolSpec {
	return []llm.ToolSpec{{Name: "await"}, {Name: "signal"}}
}
func (t *meetingTools) Has(name string) bool { return name == "await" || name == "signal" }
func (t *meetingTools) Close() error         { return nil }
func (t *meetingTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	out := ToolOutcome{Observation: name + " done"}
	if name == "signal" {
		t.once.Do(func() { close(t.met) })
	} else {
		select {
		case <-t.met:
		case <-time.After(30 * time.Second):
			out = ToolOutcome{IsError: true, Observation: "await: signal never ran alongside"}
		case <-ctx.Done():
			out = ToolOutcome{IsError: true, Observation: "await: cancelled"}
		}
	}
	t.mu.Lock()
	t.finish = append(t.finish, id)
	t.mu.Unlock()
	return out, nil
}

type orderHooks struct{ ran []string }

func (h *orderHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	var p struct {
		CallID string `json:"call_id"`
	}
	json.Unmarshal(req.Payload, &p)
	if p.CallID != "" {
		h.ran = append(h.ran, string(req.Name)+":"+p.CallID)
	}
	return HookDecision{Action: HookContinue}, nil
}

// TestParallelBatch: the calls of one turn run at the same time; their
// pre-tool hooks run in call order and every ACTION_REQUEST is journaled
// before the first call starts; results are journaled as calls finish.
func TestParallelBatch(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("c1", "await", `{}`), call("c2", "signal", `{}`)}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	tools := newMeetingTools()
	hooks := &orderHooks{}
	e.Tools, e.Hooks, e.Parallel = tools, hooks, 4
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	events, _ := j.Events()
	var order []string
	for _, ev := range events {
		switch ev.Type {
		case journal.ActionRequest:
			order = append(order, "request:"+ev.CallID)
		case journal.ActionResult:
			order = append(order, "result:"+ev.CallID)
			if ev.IsError {
				t.Errorf("%s: %s", ev.CallID, ev.ObservationContent)
			}
		}
	}
	// c2 (signal) finishes first: await waits for it.
	if got := strings.Join(order, " "); got != "request:c1 request:c2 result:c2 result:c1" {
		t.Errorf("journal order: %s", got)
	}
	if got := strings.Join(hooks.ran, " "); !strings.HasPrefix(got, "pre_tool_execution:c1 pre_tool_execution:c2 ") {
		t.Errorf("hooks ran: %s; want both pre-tool hooks first, in call order", got)
	}
}

// TestSequentialWithoutParallel: with Parallel 1 (or 0) calls run one
// after the other, each with its request and result.
func TestSequentialWithoutParallel(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("c1", "echo", `{"text":"a"}`), call("c2", "echo", `{"text":"b"}`)}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	e.Parallel = 1
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	want := []string{"ENGINE_START", "USER_MESSAGE", "THOUGHT", "ACTION_REQUEST", "ACTION_RESULT", "ACTION_REQUEST", "ACTION_RESULT", "THOUGHT", "ENGINE_END"}
	if got := types(t, j); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("journal %v", got)
	}
}

// TestParallelAskHumanInOrder: ask_human in a batch is asked in its
// place: the calls before it run, the run pauses, and the calls after it
// run only once the answer is in.
func TestParallelAskHumanInOrder(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("c1", "echo", `{"text":"a"}`), call("c2", "echo", `{"text":"b"}`),
			call("q", "ask_human", `{"prompt":"go on?"}`), call("c3", "echo", `{"text":"c"}`)}},
		{Content: "done"},
	}}
	e, j, tools := newEngine(t, p)
	e.Parallel = 4
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.WaitingForInput {
		t.Fatalf("Start() = %+v, %v; want WAITING_FOR_INPUT", out, err)
	}
	if tools.calls.Load() != 2 {
		t.Errorf("%d calls ran before the question, want 2", tools.calls.Load())
	}
	if err := os.WriteFile(filepath.Join(e.Run.RunDir, "interaction", "response.txt"), []byte("yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e2 := *e
	e2.Message = ""
	if out, err := e2.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("resume = %+v, %v", out, err)
	}
	if tools.calls.Load() != 3 {
		t.Errorf("%d calls ran, want 3", tools.calls.Load())
	}
	events, _ := j.Events()
	results := map[string]int{}
	for _, ev := range events {
		if ev.Type == journal.ActionResult {
			results[ev.CallID]++
		}
	}
	for _, id := range []string{"c1", "c2", "q", "c3"} {
		if results[id] != 1 {
			t.Errorf("%s has %d results, want 1", id, results[id])
		}
	}
}

// stallTools' calls wait for their context; the second to start cancels
// the run (an interrupt while both run).
type stallTools struct {
	mu      sync.Mutex
	started int
	cancel  func()
}

func (t *stallTools) Specs() []llm.ToolSpec { return []llm.ToolSpec{{Name: "stall"}} }
func (t *stallTools) Has(name string) bool  { return name == "stall" }
func (t *stallTools) Close() error          { return nil }
func (t *stallTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	t.mu.Lock()
	t.started++
	if t.started == 2 {
		t.cancel()
	}
	t.mu.Unlock()
	<-ctx.Done()
	return ToolOutcome{IsError: true, ExitCode: 143, Observation: "killed"}, nil
}

// TestParallelInterrupt: an interrupt during a batch journals every
// call's result (the running ones as interrupted) and ends INTERRUPTED.
func TestParallelInterrupt(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("c1", "stall", `{}`), call("c2", "stall", `{}`)}},
	}}
	e, j, _ := newEngine(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Tools, e.Parallel = &stallTools{cancel: cancel}, 4
	out, err := e.Start(ctx, nil)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if out.Status != runs.Interrupted {
		t.Fatalf("Start() = %+v, want INTERRUPTED", out)
	}
	events, _ := j.Events()
	results := 0
	for _, ev := range events {
		if ev.Type == journal.ActionResult {
			results++
			if !ev.IsError || !strings.Contains(ev.ObservationContent, "interrupted") {
				t.Errorf("result of %s: %q", ev.CallID, ev.ObservationContent)
			}
		}
	}
	if results != 2 {
		t.Errorf("%d results journaled, want 2", results)
	}
}
