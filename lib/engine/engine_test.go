package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

// scriptProvider answers turn N with turns[N], like the scripted provider.
type scriptProvider struct {
	turns []llm.Response
	reqs  []llm.Request
	fail  map[int]error
}

func (p *scriptProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.reqs = append(p.reqs, req)
	if err := p.fail[req.Turn]; err != nil {
		return llm.Response{}, err
	}
	if req.Turn >= len(p.turns) {
		return llm.Response{}, fmt.Errorf("script has no turn %d", req.Turn)
	}
	return p.turns[req.Turn], nil
}

// journalContext rebuilds an OpenAI-style conversation from the journal:
// the small test stand-in for contextgen.
type journalContext struct{ j Journal }

func (c journalContext) Build(ctx context.Context, run RunInfo) ([]llm.Message, error) {
	events, err := c.j.Events()
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "test"}}
	for _, ev := range events {
		switch ev.Type {
		case journal.UserMessage, journal.SystemMessage:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: ev.Content})
		case journal.Thought:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: ev.Content, ToolCalls: ev.ToolCalls})
		case journal.ActionResult:
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: ev.CallID, Content: ev.ObservationContent})
		}
	}
	return msgs, nil
}

// echoTools has one tool, "echo", that returns its "text" argument.
// echoTools echoes its text argument. Calls of one turn run side by side:
// calls counts them atomically.
type echoTools struct{ calls atomic.Int32 }

func (t *echoTools) Specs() []llm.ToolSpec {
	return []llm.ToolSpec{{Name: "echo", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (t *echoTools) Has(name string) bool { return name == "echo" }
func (t *echoTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	t.calls.Add(1)
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Observation: a.Text}, nil
}
func (t *echoTools) Close() error { return nil }

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

func newEngine(t *testing.T, p llm.Provider) (*Engine, *FileJournal, *echoTools) {
	t.Helper()
	dir := t.TempDir()
	j, err := OpenFileJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	tools := &echoTools{}
	return &Engine{Run: RunInfo{RunID: "r1", RunDir: dir, JournalPath: filepath.Join(dir, "journal.jsonl")},
		Journal: j, Provider: p, Context: journalContext{j}, Tools: tools, Message: "task"}, j, tools
}

func types(t *testing.T, j Journal) []string {
	t.Helper()
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, ev.Seq)
		}
		out = append(out, string(ev.Type))
	}
	return out
}

func TestLoopCompletesWithJSONResult(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"one"}`), call("b", "nope", `{}`), call("c", "echo", `not json`)}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}, Model: "m"},
		{Content: `{"ok": true}`, Usage: llm.Usage{InputTokens: 20, OutputTokens: 3}, Model: "m"},
	}}
	e, j, tools := newEngine(t, p)
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Completed || string(out.Result) != `{"ok":true}` || out.Iterations != 2 {
		t.Fatalf("Start() = %+v", out)
	}
	if diff := cmp.Diff(llm.Usage{InputTokens: 30, OutputTokens: 5}, out.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	want := []string{"ENGINE_START", "USER_MESSAGE", "THOUGHT", "ACTION_REQUEST", "ACTION_RESULT", "ACTION_REQUEST", "ACTION_RESULT", "ACTION_REQUEST", "ACTION_RESULT", "THOUGHT", "ENGINE_END"}
	if diff := cmp.Diff(want, types(t, j)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if tools.calls.Load() != 1 {
		t.Errorf("echo ran %d times, want 1", tools.calls.Load())
	}
	// The second request carries the three observations, errors included.
	last := p.reqs[1].Messages
	var obs []string
	for _, m := range last {
		if m.Role == llm.RoleTool {
			obs = append(obs, m.Content)
		}
	}
	if len(obs) != 3 || obs[0] != "one" {
		t.Errorf("observations = %q", obs)
	}
	if p.reqs[1].Turn != 1 {
		t.Errorf("second request Turn = %d, want 1", p.reqs[1].Turn)
	}
}

func TestMaxIterationsFails(t *testing.T) {
	loop := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"again"}`)}}
	p := &scriptProvider{turns: []llm.Response{loop, loop, loop, loop, loop, loop, loop}}
	e, j, _ := newEngine(t, p)
	e.MaxIterations = 7
	e.LoopWindow = 3
	hooks := &fakeHooks{}
	e.Hooks = hooks
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Failed || out.Error == nil || out.Error.Type != ErrTypeMaxIterations || out.Error.Details == "" {
		t.Fatalf("Start() = %+v, want FAILED max_iterations with details", out)
	}
	if n := len(hooks.ran); n < 2 || hooks.ran[n-2] != "on_error" {
		t.Errorf("hooks run = %v, want on_error before on_run_end", hooks.ran)
	}
	events, _ := j.Events()
	var errEv journal.Event
	for _, ev := range events {
		if ev.Type == journal.Error {
			errEv = ev
		}
	}
	if !strings.Contains(string(errEv.ErrorDetails), `"type":"max_iterations"`) || !strings.Contains(string(errEv.ErrorDetails), "--max-iterations") {
		t.Errorf("ERROR event = %+v", errEv)
	}
	warned := 0
	for _, ev := range events {
		if ev.Type == journal.SystemMessage && ev.Kind == journal.KindLoopDetection {
			warned++
		}
	}
	if warned != 2 { // before turns 4 and 7: each warning needs 3 new identical calls
		t.Errorf("%d loop warnings, want 2", warned)
	}
}

func TestAskHumanAsyncThenResume(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("q", "ask_human", `{"prompt":"name?"}`)}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.WaitingForInput || out.Interaction == nil || out.Interaction.Prompt != "name?" {
		t.Fatalf("Start() = %+v, want WAITING_FOR_INPUT", out)
	}
	req := filepath.Join(e.Run.RunDir, "interaction", "request.json")
	if _, err := os.Stat(req); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Run.RunDir, "interaction", "response.txt"), []byte("Ada\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e2 := *e
	e2.Message = ""
	out, err = e2.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Completed || out.ResultText != "done" {
		t.Fatalf("resume = %+v", out)
	}
	if _, err := os.Stat(req); !os.IsNotExist(err) {
		t.Errorf("request.json still there: %v", err)
	}
	want := []string{"ENGINE_START", "USER_MESSAGE", "THOUGHT", "ACTION_REQUEST", "HUMAN_INPUT_REQUEST", "ENGINE_END",
		"ENGINE_START", "HUMAN_INPUT_RECEIVED", "ACTION_RESULT", "THOUGHT", "ENGINE_END"}
	if diff := cmp.Diff(want, types(t, j)); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}

func TestResumeAfterCrashRecordsInterruptedCall(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"x"}`), call("b", "echo", `{"text":"y"}`)}},
		{Content: "ok"},
	}}
	e, j, tools := newEngine(t, p)
	// A crash after call a was requested but before its result.
	for _, ev := range []journal.Event{
		{Type: journal.EngineStart}, {Type: journal.UserMessage, Content: "task"},
		{Type: journal.Thought, Iteration: 1, ToolCalls: p.turns[0].ToolCalls},
		{Type: journal.ActionRequest, Iteration: 1, CallID: "a", ToolName: "echo"},
	} {
		if err := j.Append(&ev); err != nil {
			t.Fatal(err)
		}
	}
	e.Message = ""
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Completed {
		t.Fatalf("Start() = %+v", out)
	}
	if tools.calls.Load() != 1 {
		t.Errorf("tool ran %d times, want 1 (only the call never started)", tools.calls.Load())
	}
	events, _ := j.Events()
	results := map[string]bool{}
	for _, ev := range events {
		if ev.Type == journal.ActionResult {
			results[ev.CallID] = ev.IsError
		}
	}
	if diff := cmp.Diff(map[string]bool{"a": true, "b": false}, results); diff != "" {
		t.Errorf("results is_error (-want +got):\n%s", diff)
	}
}

func TestLLMErrorFails(t *testing.T) {
	p := &scriptProvider{fail: map[int]error{0: fmt.Errorf("boom")}}
	e, _, _ := newEngine(t, p)
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Failed || out.Error.Type != ErrTypeLLM {
		t.Fatalf("Start() = %+v", out)
	}
	// The run failed in iteration 1, not "after iteration 0".
	if out.Iterations != 1 {
		t.Errorf("Iterations = %d, want 1", out.Iterations)
	}
}

func TestInterruptedBeforeModelCall(t *testing.T) {
	p := &scriptProvider{}
	e, _, _ := newEngine(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := e.Start(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Interrupted {
		t.Fatalf("Start() = %+v", out)
	}
}

func TestParseResult(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1}`, `{"a":1}`},
		{`hello`, `"hello"`},
		{`42`, `42`},
		{``, `""`},
	} {
		if got := string(ParseResult(tc.in)); got != tc.want {
			t.Errorf("ParseResult(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// fakeHooks modifies every model request (adds a system message), blocks
// tool calls named "echo" and records which hooks ran.
type fakeHooks struct{ ran []string }

func (h *fakeHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	h.ran = append(h.ran, string(req.Name))
	switch req.Name {
	case "pre_llm_request":
		var r llm.Request
		if err := json.Unmarshal(req.Payload, &r); err != nil {
			return HookDecision{}, err
		}
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleSystem, Content: "injected by hook"})
		payload, _ := json.Marshal(r)
		return HookDecision{Action: HookModify, Payload: payload, Ran: true, Ref: "io/hooks/x"}, nil
	case "pre_tool_execution":
		var p struct {
			ToolName string `json:"tool_name"`
			CallID   string `json:"call_id"`
		}
		if err := json.Unmarshal(req.Payload, &p); err != nil || p.CallID == "" {
			return HookDecision{}, fmt.Errorf("bad payload %s", req.Payload)
		}
		if p.ToolName == "echo" {
			return HookDecision{Action: HookBlock, Reason: "echo is not allowed", Ran: true}, nil
		}
	}
	return HookDecision{Action: HookContinue}, nil
}

func TestHooksModifyAndBlock(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"x"}`)}},
		{Content: "done"},
	}}
	e, j, tools := newEngine(t, p)
	hooks := &fakeHooks{}
	e.Hooks = hooks
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if tools.calls.Load() != 0 {
		t.Errorf("blocked tool ran %d times", tools.calls.Load())
	}
	last := p.reqs[0].Messages[len(p.reqs[0].Messages)-1]
	if last.Content != "injected by hook" {
		t.Errorf("the model did not get the modified request: last message %+v", last)
	}
	events, _ := j.Events()
	var blocked *journal.Event
	hookEvents := 0
	for i, ev := range events {
		if ev.Type == journal.ActionResult {
			blocked = &events[i]
		}
		if ev.Type == journal.HookExecution {
			hookEvents++
		}
	}
	if blocked == nil || !blocked.IsError || blocked.ObservationContent != "error: the call to echo was blocked by the pre_tool_execution hook: echo is not allowed" {
		t.Errorf("blocked ACTION_RESULT = %+v", blocked)
	}
	if hookEvents != 3 { // two pre_llm_request, one pre_tool_execution
		t.Errorf("%d HOOK_EXECUTION events, want 3", hookEvents)
	}
	want := []string{"on_iteration_start", "pre_llm_request", "post_llm_response", "pre_tool_execution", "post_tool_execution",
		"on_iteration_end", "on_iteration_start", "pre_llm_request", "post_llm_response", "on_iteration_end", "on_run_end"}
	if diff := cmp.Diff(want, hooks.ran); diff != "" {
		t.Errorf("hooks run (-want +got):\n%s", diff)
	}
}

// FuzzParseResult: whatever the model answers, the result is valid JSON
// (RunResult embeds it), and a JSON answer keeps its value.
func FuzzParseResult(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "plain text", "", "[1,2", `"quoted"`, "null", " 42 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseResult(s)
		if !json.Valid(got) {
			t.Fatalf("ParseResult(%q) = %s, not JSON", s, got)
		}
		if !json.Valid([]byte(s)) && utf8.ValidString(s) {
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != s {
				t.Fatalf("ParseResult(%q) = %s, want the text as a JSON string", s, got)
			}
		}
	})
}
