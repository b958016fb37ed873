package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
)

// hook runs one lifecycle hook and journals HOOK_EXECUTION when it ran. A
// hook's own failure never stops the run; only a failed journal write does.
// A modify decision is only meaningful through hookApply.
func (e *Engine) hook(ctx context.Context, req HookRequest) (HookDecision, error) {
	return e.hookApply(ctx, req, nil)
}

// FailedHook is the decision of a hook that could not give a verdict
// (it failed, timed out, was interrupted, or answered something unusable):
// the hooks' fail-closed rule (lib/approval has the approvals'). A failing pre_tool_execution hook is a policy
// that could not decide, so the call is blocked; any other failing hook
// never breaks the run. The hook runner and the engine both use it.
func FailedHook(name agent.HookName, ref, failure string) HookDecision {
	d := HookDecision{Action: HookContinue, Ref: ref, Failure: failure}
	if name == agent.PreToolExecution {
		d.Action = HookBlock
		d.Reason = "policy hook failed (fail-closed): " + failure
	}
	return d
}

// hookConfigured reports whether the agent may have a hook for name (true
// when the engine does not know the agent).
func (e *Engine) hookConfigured(name agent.HookName) bool {
	if e.Run.Agent == nil {
		return true
	}
	_, ok := e.Run.Agent.Hooks[name]
	return ok
}

// hookApply is hook for the hooks that may modify: a modify decision is
// handed to apply before it is journaled, and when apply rejects the
// payload (or there is no apply) the engine goes on unchanged and the
// HOOK_EXECUTION event records decision continue with the reason.
func (e *Engine) hookApply(ctx context.Context, req HookRequest, apply func(json.RawMessage) error) (HookDecision, error) {
	if e.Hooks == nil {
		return HookDecision{Action: HookContinue}, nil
	}
	req.Run = e.Run
	if e.hookConfigured(req.Name) {
		// A hook may read the run's records: they are all on disk.
		e.Run.Records.Wait()
	}
	dec, err := e.Hooks.RunHook(ctx, req)
	if err != nil {
		e.Log.Printf("hook %s: %v", req.Name, err)
		failure := dec.Failure
		if failure == "" {
			failure = err.Error()
		}
		reason, ran := dec.Reason, dec.Ran
		dec = FailedHook(req.Name, dec.Ref, failure)
		dec.Ran = ran
		if reason != "" && dec.Action == HookBlock {
			dec.Reason = reason
		}
	}
	if dec.Action == "" {
		dec.Action = HookContinue
	}
	if dec.Action == HookModify {
		if err := applyModify(apply, dec.Payload); err != nil {
			e.Log.Printf("hook %s: final payload ignored: %v", req.Name, err)
			ran := dec.Ran
			dec = FailedHook(req.Name, dec.Ref, "final_payload.json ignored: "+err.Error())
			dec.Ran = ran
		}
	}
	if dec.Ran {
		ev := &journal.Event{Type: journal.HookExecution, Iteration: e.Run.Iteration, HookName: string(req.Name),
			Decision: dec.Action, HookRef: dec.Ref, ErrorMessage: dec.Failure, Content: dec.Reason}
		if err := e.append(ev); err != nil {
			return dec, err
		}
	}
	return dec, nil
}

// applyModify hands a hook's modified payload to apply.
func applyModify(apply func(json.RawMessage) error, payload json.RawMessage) error {
	switch {
	case apply == nil:
		return fmt.Errorf("this hook has nothing to replace")
	case len(payload) == 0:
		return fmt.Errorf("no payload")
	}
	return apply(payload)
}
