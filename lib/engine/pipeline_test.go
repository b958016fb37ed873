package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// policyHooks records the tool hooks it runs (by call id) and answers the
// pre_tool_execution hook of a call whose text is "block" or "ask" so.
type policyHooks struct {
	mu   sync.Mutex
	pre  map[string]int
	post map[string]int
}

func (h *policyHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	var p struct {
		CallID   string                `json:"call_id"`
		ToolArgs struct{ Text string } `json:"tool_args"`
	}
	if req.Name != agent.PreToolExecution && req.Name != agent.PostToolExecution {
		return HookDecision{Action: HookContinue}, nil
	}
	if err := json.Unmarshal(req.Payload, &p); err != nil {
		return HookDecision{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if req.Name == agent.PostToolExecution {
		h.post[p.CallID]++
		return HookDecision{Action: HookContinue}, nil
	}
	h.pre[p.CallID]++
	switch p.ToolArgs.Text {
	case "block":
		return HookDecision{Action: HookBlock, Reason: "policy says no", Ran: true}, nil
	case "ask":
		return HookDecision{Action: HookAsk, Reason: "a human must look", Ran: true}, nil
	}
	return HookDecision{Action: HookContinue}, nil
}

// secretTools echoes its text and adds a secret to every output.
type secretTools struct {
	echoTools
	ran sync.Map // call id → true
}

const testSecret = "sk-pipeline-secret-0123456789"

func (t *secretTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	t.ran.Store(id, true)
	out, err := t.echoTools.Call(ctx, run, id, name, args)
	out.Observation += " key=" + testSecret
	return out, err
}

// pipelineCalls are the calls every path is given: one that runs, one
// the hook blocks, one a rule denies, one the hook wants a human for.
var pipelineCalls = []llm.ToolCall{
	call("c_run", "echo", `{"text":"hello"}`),
	call("c_block", "echo", `{"text":"block"}`),
	call("c_deny", "echo", `{"text":"rm"}`),
	call("c_ask", "echo", `{"text":"ask"}`),
}

// pipelineEngine is an engine with the recording hooks, a rule denying
// text "rm", the secret redacted and approvals off.
func pipelineEngine(t *testing.T, p llm.Provider) (*Engine, *FileJournal, *policyHooks, *secretTools) {
	t.Helper()
	e, j, _ := newEngine(t, p)
	hooks := &policyHooks{pre: map[string]int{}, post: map[string]int{}}
	tools := &secretTools{}
	policy, problems := approval.Compile(&agent.Agent{Approval: []agent.ApprovalRule{
		{Tool: "echo", JQ: `.text == "rm"`, Decision: agent.ApproveDeny, Reason: "no rm", Line: 7}}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e.Hooks, e.Tools, e.Approve, e.Approvals = hooks, tools, policy, approval.ModeDeny
	e.Redact = redact.FromEnv([]string{"TEST_API_KEY=" + testSecret})
	return e, j, hooks, tools
}

// checkPipeline asserts that every call took every step: both hooks ran
// once, only the call nobody refused ran, the refusals say why, and no
// result holds the secret.
func checkPipeline(t *testing.T, j *FileJournal, hooks *policyHooks, tools *secretTools) {
	t.Helper()
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	requests := map[string]int{}
	for _, ev := range events {
		switch ev.Type {
		case journal.ActionResult:
			results[ev.CallID] = ev.ObservationContent
		case journal.ActionRequest:
			requests[ev.CallID]++
		}
	}
	want := map[string]string{
		"c_run":   "hello key=[REDACTED:TEST_API_KEY]",
		"c_block": "blocked by the pre_tool_execution hook: policy says no",
		"c_deny":  "denied by the approval policy (agent.yaml approval rule at line 7): no rm",
		"c_ask":   "denied by the approval policy (the pre_tool_execution hook): a human must look (it needs a human's approval",
	}
	for _, c := range pipelineCalls {
		id := c.ID
		if !strings.Contains(results[id], want[id]) {
			t.Errorf("ACTION_RESULT of %s = %q, want it to hold %q", id, results[id], want[id])
		}
		if strings.Contains(results[id], testSecret) {
			t.Errorf("ACTION_RESULT of %s holds the secret", id)
		}
		if hooks.pre[id] != 1 || hooks.post[id] != 1 || requests[id] != 1 {
			t.Errorf("call %s: pre hook %d, post hook %d, ACTION_REQUEST %d times; want 1 each", id, hooks.pre[id], hooks.post[id], requests[id])
		}
		if _, ran := tools.ran.Load(id); ran != (id == "c_run") {
			t.Errorf("call %s ran: %v", id, ran)
		}
	}
}

// TestEveryPathTakesEveryStep: the loop (one call after the other, and in
// parallel) and a Caller (delta mcp serve) run each call through the
// pre_tool_execution hook, the approval rules, the toolbox, redaction and
// the post_tool_execution hook; and under --approvals deny a hook's ask
// is denied like a rule's, the run going on (issue 27, hole 3: it paused
// the run with exit 101).
func TestEveryPathTakesEveryStep(t *testing.T) {
	for _, parallel := range []int{1, 4} {
		t.Run(fmt.Sprintf("loop parallel %d", parallel), func(t *testing.T) {
			p := &scriptProvider{turns: []llm.Response{{ToolCalls: pipelineCalls}, {Content: "done"}}}
			e, j, hooks, tools := pipelineEngine(t, p)
			e.Parallel = parallel
			out, err := e.Start(context.Background(), nil)
			if err != nil || out.Status != runs.Completed {
				t.Fatalf("Start() = %+v, %v; want COMPLETED (a hook's ask is denied under --approvals deny)", out, err)
			}
			checkPipeline(t, j, hooks, tools)
		})
	}
	t.Run("caller", func(t *testing.T) {
		e, j, hooks, tools := pipelineEngine(t, nil)
		e.Approvals = approval.ModeAsk // nobody to ask: denied all the same
		e.NoHuman = approval.NoHuman
		e.Run.Iteration = 1
		c := NewCaller(e)
		for _, call := range pipelineCalls {
			out, err := c.Call(context.Background(), call, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.Observation, testSecret) {
				t.Errorf("Call(%s) = %q: the secret is not redacted", call.ID, out.Observation)
			}
		}
		checkPipeline(t, j, hooks, tools)
	})
}

// answerAsker answers every question with answer and counts them.
type answerAsker struct {
	answer string
	asked  int
}

func (a *answerAsker) Ask(ctx context.Context, q Interaction) (string, error) {
	a.asked++
	return a.answer, nil
}

// TestCallerAsks: a Caller with someone to ask (an MCP client that can
// elicit) asks about a call the hook wants a human for, journals the
// question and the answer, and runs the call only when approved.
func TestCallerAsks(t *testing.T) {
	for _, answer := range []string{"approved", "denied: not today"} {
		t.Run(answer, func(t *testing.T) {
			e, j, hooks, tools := pipelineEngine(t, nil)
			e.Approvals, e.Run.Iteration = approval.ModeAsk, 1
			ask := &answerAsker{answer: answer}
			out, err := NewCaller(e).Call(context.Background(), call("c_ask", "echo", `{"text":"ask"}`), ask)
			if err != nil {
				t.Fatal(err)
			}
			_, ran := tools.ran.Load("c_ask")
			if ask.asked != 1 || ran != (answer == "approved") || hooks.pre["c_ask"] != 1 {
				t.Errorf("asked %d times, ran %v, pre hook %d times; want 1, %v, 1", ask.asked, ran, hooks.pre["c_ask"], answer == "approved")
			}
			if answer != "approved" && !strings.Contains(out.Observation, "not today") {
				t.Errorf("denied call's observation = %q, want the reason", out.Observation)
			}
			got := types(t, j)
			want := []string{"HOOK_EXECUTION", "HUMAN_INPUT_REQUEST", "HUMAN_INPUT_RECEIVED", "ACTION_REQUEST", "ACTION_RESULT"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("journal = %v, want %v", got, want)
			}
		})
	}
}
