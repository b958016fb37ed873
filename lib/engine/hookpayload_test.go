package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

func TestMergeResponse(t *testing.T) {
	orig := llm.Response{Content: "rm everything", ToolCalls: []llm.ToolCall{call("c1", "echo", `{"text":"x"}`)},
		Usage: llm.Usage{InputTokens: 7, OutputTokens: 3}, Model: "m", FinishReason: "tool_calls"}
	for _, tc := range []struct {
		name, payload string
		want          llm.Response
		wantErr       bool
	}{
		{name: "content only keeps the calls", payload: `{"content":"filtered"}`,
			want: llm.Response{Content: "filtered", ToolCalls: orig.ToolCalls, Usage: orig.Usage, Model: "m", FinishReason: "tool_calls"}},
		{name: "tool_calls null makes a final answer", payload: `{"content":"no","tool_calls":null,"finish_reason":"stop"}`,
			want: llm.Response{Content: "no", ToolCalls: []llm.ToolCall{}, Usage: orig.Usage, Model: "m", FinishReason: "stop"}},
		{name: "arguments as text or object", payload: `{"tool_calls":[{"id":"a","name":"echo","arguments":"{\"text\":\"t\"}"},{"name":"echo","arguments":{"text":"o"}}]}`,
			want: llm.Response{Content: orig.Content, ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"t"}`), call("", "echo", `{"text":"o"}`)},
				Usage: orig.Usage, Model: "m", FinishReason: "tool_calls"}},
		{name: "usage and model stay", payload: `{"usage":{"input_tokens":0},"model":"fake"}`, want: orig},
		{name: "not an object", payload: `["x"]`, wantErr: true},
		{name: "content not a string", payload: `{"content":3}`, wantErr: true},
		{name: "call without name", payload: `{"tool_calls":[{"arguments":"{}"}]}`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := orig
			err := mergeResponse(&got, json.RawMessage(tc.payload))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("mergeResponse(%s) = nil error, got %+v", tc.payload, got)
				}
				if diff := cmp.Diff(orig, got); diff != "" {
					t.Errorf("a rejected answer changed the response (-orig +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("merged response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeRequestOutcomeArgs(t *testing.T) {
	req := llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}, Turn: 4}
	got := req
	if err := mergeRequest(&got, json.RawMessage(`{"messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}]}`)); err != nil {
		t.Fatal(err)
	}
	want := llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "hi"}}, Turn: 4}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged request (-want +got):\n%s", diff)
	}
	if err := mergeRequest(&got, json.RawMessage(`{"messages":[]}`)); err == nil {
		t.Error("a request without messages was accepted")
	}
	if err := mergeRequest(&got, json.RawMessage(`"x"`)); !errors.Is(err, errNotObject) {
		t.Errorf("mergeRequest(string) = %v, want errNotObject", err)
	}

	res := ToolOutcome{Observation: "secret=42", ExitCode: 3, IsError: true, RecordPath: "io/tool_executions/x"}
	if err := mergeOutcome(&res, json.RawMessage(`{"observation":"secret=[redacted]","is_error":false,"exit_code":0}`)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ToolOutcome{Observation: "secret=[redacted]", ExitCode: 3, RecordPath: "io/tool_executions/x"}, res); diff != "" {
		t.Errorf("merged outcome (-want +got):\n%s", diff)
	}

	args := json.RawMessage(`{"text":"a"}`)
	if err := mergeToolArgs(&args, json.RawMessage(`{"tool_args":"nope"}`)); err == nil || string(args) != `{"text":"a"}` {
		t.Errorf("string tool_args: err %v, args %s", err, args)
	}
	if err := mergeToolArgs(&args, json.RawMessage(`{"tool_args":{"text":"b"}}`)); err != nil || string(args) != `{"text":"b"}` {
		t.Errorf("object tool_args: err %v, args %s", err, args)
	}
}

// postHooks rewrites the model's first answer (a different tool call) and
// every observation, and answers on_iteration_end with a payload nobody
// can use.
type postHooks struct{}

func (postHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	switch req.Name {
	case "post_llm_response":
		var r llm.Response
		if err := json.Unmarshal(req.Payload, &r); err != nil {
			return HookDecision{}, err
		}
		if len(r.ToolCalls) > 0 {
			return HookDecision{Action: HookModify, Ran: true, Payload: json.RawMessage(
				`{"content":"rewritten","tool_calls":[{"id":"h1","name":"echo","arguments":{"text":"from hook"}}]}`)}, nil
		}
	case "post_tool_execution":
		var p struct {
			Observation string `json:"observation"`
		}
		if err := json.Unmarshal(req.Payload, &p); err != nil {
			return HookDecision{}, err
		}
		payload, _ := json.Marshal(map[string]string{"observation": "seen: " + p.Observation})
		return HookDecision{Action: HookModify, Ran: true, Payload: payload}, nil
	case "on_iteration_end":
		return HookDecision{Action: HookModify, Ran: true, Payload: json.RawMessage(`{}`)}, nil
	}
	return HookDecision{Action: HookContinue}, nil
}

func TestPostHooksModify(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{Content: "original", ToolCalls: []llm.ToolCall{call("m1", "echo", `{"text":"from model"}`)}},
		{Content: "done"},
	}}
	e, j, tools := newEngine(t, p)
	e.Hooks = postHooks{}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if tools.calls.Load() != 1 {
		t.Fatalf("tool ran %d times, want 1", tools.calls.Load())
	}
	events, _ := j.Events()
	var thought, result journal.Event
	var decisions []string
	for _, ev := range events {
		switch ev.Type {
		case journal.Thought:
			if thought.Type == "" {
				thought = ev
			}
		case journal.ActionResult:
			result = ev
		case journal.HookExecution:
			decisions = append(decisions, ev.HookName+"="+ev.Decision+" "+ev.ErrorMessage)
		}
	}
	if thought.Content != "rewritten" || len(thought.ToolCalls) != 1 || thought.ToolCalls[0].Arguments != `{"text":"from hook"}` {
		t.Errorf("THOUGHT = %+v, want the hook's answer", thought)
	}
	if result.CallID != "h1" || result.ObservationContent != "seen: from hook" {
		t.Errorf("ACTION_RESULT = %+v, want the hook's observation of the hook's call", result)
	}
	want := []string{"post_llm_response=modify ", "post_tool_execution=modify ",
		"on_iteration_end=continue final_payload.json ignored: this hook has nothing to replace",
		"on_iteration_end=continue final_payload.json ignored: this hook has nothing to replace"} // the final iteration's
	if diff := cmp.Diff(want, decisions); diff != "" {
		t.Errorf("HOOK_EXECUTION decisions (-want +got):\n%s", diff)
	}
	if got := p.reqs[1].Messages[len(p.reqs[1].Messages)-1].Content; got != "seen: from hook" {
		t.Errorf("the model saw %q, want the modified observation", got)
	}
}

// failingHooks fails every hook: the policy hook with a runner error, and
// the others with an unusable modification.
type failingHooks struct{}

func (failingHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	if req.Name == "pre_tool_execution" {
		return HookDecision{Action: HookContinue, Ran: true}, fmt.Errorf("policy exploded")
	}
	return HookDecision{Action: HookModify, Ran: true, Payload: json.RawMessage(`[1]`)}, nil
}

// TestFailingPolicyHookFailsClosed: a pre_tool_execution hook that errors
// blocks the call even when the runner answered continue, while other
// failing hooks leave the run alone.
func TestFailingPolicyHookFailsClosed(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("f1", "echo", `{"text":"x"}`)}},
		{Content: "done"},
	}}
	e, j, tools := newEngine(t, p)
	e.Hooks = failingHooks{}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if tools.calls.Load() != 0 {
		t.Errorf("tool ran %d times behind a failing policy hook, want 0", tools.calls.Load())
	}
	events, _ := j.Events()
	var result *journal.Event
	for i := range events {
		if events[i].Type == journal.ActionResult {
			result = &events[i]
		}
	}
	if result == nil || !result.IsError || !strings.Contains(result.ObservationContent, "policy exploded") {
		t.Errorf("ACTION_RESULT = %+v, want an error observation naming the hook failure", result)
	}
}
