package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// The tool-call pipeline. Every tool call, whoever makes it (the model in
// the loop, an MCP client through Step), takes the same steps:
//
//	pre_tool_execution hook → approval → ACTION_REQUEST → the toolbox →
//	redaction → post_tool_execution hook → ACTION_RESULT
//
// prepare runs the hook and the approval policy, request journals the
// ACTION_REQUEST, execute runs the toolbox and redacts, finishCall runs
// the post hook and journals the ACTION_RESULT. The loop adds pauses and
// parallel batches around these steps (act.go), Step a lock; neither has
// a step of its own.

// toolCall is one call on its way through the pipeline: the model's call
// with its arguments validated, its command line resolved and the approval
// policy applied once, for the hooks, the policy, the journal and the
// question to a human alike. A hook that modifies the arguments makes a
// new toolCall of them.
type toolCall struct {
	llm.ToolCall
	// args are the arguments as a JSON value: the model's object, or its
	// text as a JSON string when it is not valid JSON (valid is false).
	args  json.RawMessage
	valid bool
	// command is the command line the call runs ("" for a tool that is
	// not a command), as hooks (resolved_command) and rules see it.
	command string
	// policy is the approval rules' verdict, fail-closed (Approvals).
	policy approval.Verdict
	// unsandboxed: the call runs outside the sandbox, escalated
	// (escalate.go).
	unsandboxed bool
}

// newCall validates, resolves and judges c once.
func (e *Engine) newCall(c llm.ToolCall) toolCall {
	tc := toolCall{ToolCall: c, args: argsJSON(c.Arguments), policy: approval.Allow}
	tc.valid = json.Valid([]byte(orEmptyObject(c.Arguments)))
	if r, ok := e.Tools.(Resolver); ok && tc.valid {
		tc.command, _ = r.Resolve(c.Name, tc.args)
	}
	if c.Name != tool.AskHumanName {
		tc.policy = e.Approve.Decide(c.Name, tc.args, tc.command).FailClosed(e.Approvals, e.noHuman())
	}
	return tc
}

// newCalls is newCall of every call of a turn.
func (e *Engine) newCalls(calls []llm.ToolCall) []toolCall {
	out := make([]toolCall, len(calls))
	for i, c := range calls {
		out[i] = e.newCall(c)
	}
	return out
}

// noHuman is why nobody can answer an approval under ModeDeny.
func (e *Engine) noHuman() string {
	if e.NoHuman != "" {
		return e.NoHuman
	}
	return approval.NoHuman
}

// preparedCall is a call whose pre-tool hook ran and whose approval is
// decided, or asked (ask).
type preparedCall struct {
	call toolCall
	dec  HookDecision
	// ask is set when a human must approve the call first (a rule's or
	// the hook's ask, in ModeAsk); nothing is journaled for it yet.
	ask *approval.Verdict
	// refused is the observation of a call that does not run: the hook
	// blocked it, the policy or a human denied it ("" when it runs).
	refused string
}

// prepare runs the pre_tool_execution hook of tc and decides its
// approval: the hook's block, then the policy's deny, then an ask (the
// policy's or the hook's) apply, every ask fail-closed under ModeDeny.
// approved is a human's approval already given: the call then runs
// unless the hook blocks it.
func (e *Engine) prepare(ctx context.Context, tc toolCall, approved bool) (preparedCall, error) {
	fields := map[string]any{"tool_name": tc.Name, "tool_args": tc.args, "call_id": tc.ID, "resolved_command": tc.command}
	if tc.unsandboxed {
		fields["unsandboxed"] = true // a policy hook may block running outside
	}
	payload, _ := json.Marshal(fields)
	args := tc.args
	dec, err := e.hookApply(ctx, HookRequest{Name: agent.PreToolExecution, Payload: payload, ToolName: tc.Name},
		func(p json.RawMessage) error { return mergeToolArgs(&args, p) })
	if err != nil {
		return preparedCall{}, err
	}
	if dec.Action == HookModify {
		// The hook's arguments are what runs (valid JSON even when the
		// model's were not): they are resolved and judged in their turn.
		c := tc.ToolCall
		c.Arguments = string(args)
		outside := tc.unsandboxed
		tc = e.newCall(c)
		tc.unsandboxed = outside
	}
	p := preparedCall{call: tc, dec: dec}
	v := tc.policy
	if dec.Action == HookAsk && v.Decision == agent.ApproveAllow {
		v = approval.FromHook(dec.Reason).FailClosed(e.Approvals, e.noHuman())
	}
	switch {
	case dec.Action == HookBlock:
		reason := dec.Reason
		if reason == "" {
			reason = "no reason given"
		}
		p.refused = fmt.Sprintf("error: the call to %s was blocked by the pre_tool_execution hook: %s", tc.Name, reason)
	case approved: // a human decided
	case v.Decision == agent.ApproveDeny:
		p.refused = deniedObservation(tc.Name, "the approval policy ("+v.Rule+")", v.Reason)
	case v.Decision == agent.ApproveAsk:
		p.ask = &v
	}
	return p, nil
}

// request journals the ACTION_REQUEST of a prepared call: synced now, or
// by the caller before the call starts (parallel batches).
func (e *Engine) request(it int, p preparedCall, syncNow bool) error {
	ev := &journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: p.call.ID, ToolName: p.call.Name, ToolArgs: p.call.args,
		Unsandboxed: p.call.unsandboxed}
	e.describeCall(ev, p.call.args)
	if syncNow {
		return e.append(ev)
	}
	return e.appendUnsynced(ev)
}

// NotStartedObservation is the result of a call of a batch that an
// interrupt stopped before it started.
const NotStartedObservation = "error: the run was interrupted before this call started; it did not run"

// execute runs a prepared call and returns its outcome, redacted; started
// is false when an interrupt came before it started. It may run
// concurrently with other calls: it touches no journal.
func (e *Engine) execute(ctx context.Context, it int, p preparedCall) (res ToolOutcome, started bool) {
	call := p.call
	switch {
	case p.refused != "":
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: p.refused}, true
	case !call.valid:
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: the arguments of %s are not valid JSON: %q", call.Name, call.Arguments)}, true
	case e.Tools == nil || !e.Tools.Has(call.Name):
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: unknown tool %q; available tools: %s", call.Name, e.toolNames())}, true
	case ctx.Err() != nil:
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: NotStartedObservation}, false
	}
	e.Log.Printf("iteration %d: run %s (%s)", it, call.Name, call.ID)
	box := e.Tools
	if call.unsandboxed {
		if box, _ = e.outside(call.Name); box == nil {
			return ToolOutcome{IsError: true, ExitCode: -1, Unsandboxed: true, Observation: fmt.Sprintf("error: %s cannot run outside the sandbox in this run", call.Name)}, true
		}
	}
	res, err := box.Call(ctx, e.Run, call.ID, call.Name, call.args)
	res.Unsandboxed = call.unsandboxed
	if err != nil {
		res = ToolOutcome{IsError: true, ExitCode: -1, Unsandboxed: call.unsandboxed, Observation: fmt.Sprintf("error: %v", err)}
	}
	// A tool may print a secret it found (a file, a config): what the
	// journal, the hooks, the live stream and the model see has it
	// redacted.
	res.Observation, res.Stdout, res.Stderr = e.Redact.String(res.Observation), e.Redact.String(res.Stdout), e.Redact.String(res.Stderr)
	res.Data = e.Redact.Bytes(res.Data)
	RedactOutputFiles(e.Redact, e.Run.RunDir, res.RecordPath)
	redactLiveOutput(e.Redact, e.Run.RunDir, it, call.ID)
	e.Log.Printf("iteration %d: %s (%s) exit %d, error %t, %d ms", it, call.Name, call.ID, res.ExitCode, res.IsError, res.DurationMS)
	return res, true
}

// finishCall runs the post-tool hook of a call that ran and journals its
// ACTION_RESULT; after an interrupt it returns the INTERRUPTED outcome.
func (e *Engine) finishCall(ctx context.Context, it int, p preparedCall, res *ToolOutcome, started bool) (*Outcome, error) {
	call := p.call
	interrupted := ctx.Err() != nil
	if interrupted && started {
		res.IsError = true
		res.Observation = "error: interrupted by the user (the engine received a signal) before the tool finished; its effects are unknown\n" + res.Observation
	}
	// post_tool_execution runs before ACTION_RESULT is journaled so that a
	// modified observation is the one the model sees; the
	// io/tool_executions record keeps the tool's own output.
	post, _ := json.Marshal(map[string]any{"tool_name": call.Name, "tool_args": call.args, "call_id": call.ID,
		"observation": res.Observation, "exit_code": res.ExitCode, "is_error": res.IsError,
		"stdout": res.Stdout, "stderr": res.Stderr})
	if _, err := e.hookApply(ctx, HookRequest{Name: agent.PostToolExecution, Payload: post, ToolName: call.Name, ToolResult: res.Observation},
		func(p json.RawMessage) error { return mergeOutcome(res, p) }); err != nil {
		return nil, err
	}
	if err := e.result(it, call.ToolCall, *res); err != nil {
		return nil, err
	}
	if interrupted {
		out := e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted by signal while " + call.Name + " ran"})
		return &out, nil
	}
	return nil, nil
}

// result journals the ACTION_RESULT of call.
func (e *Engine) result(it int, call llm.ToolCall, res ToolOutcome) error {
	code := res.ExitCode
	parts := e.keepParts(call, &res)
	return e.append(&journal.Event{Type: journal.ActionResult, Iteration: it, CallID: call.ID, ToolName: call.Name,
		ObservationContent: res.Observation, ExitCode: &code, IsError: res.IsError,
		DurationMS: res.DurationMS, ExecutionRef: res.RecordPath, SandboxRefused: res.SandboxRefused, Unsandboxed: res.Unsandboxed,
		Parts: parts})
}

// toolNames lists the names the model may call, for error observations.
func (e *Engine) toolNames() string {
	s := ""
	for i, spec := range e.toolSpecs() {
		if i > 0 {
			s += ", "
		}
		s += spec.Name
	}
	return s
}

// argsJSON returns the call's arguments as a JSON value for the journal:
// the object itself when valid, else the raw text as a JSON string so the
// journal line stays valid.
func argsJSON(s string) json.RawMessage {
	s = orEmptyObject(s)
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func orEmptyObject(s string) string {
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
			return s
		}
	}
	return "{}"
}
