package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// Approval decisions (agent.yaml approval rules).
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	DecisionAsk   = "ask"
)

// What a call that needs a human gets (--approvals).
const (
	ApprovalsAsk  = "ask"  // pause (or ask on the terminal with -i)
	ApprovalsDeny = "deny" // refuse at once: nobody will answer
)

// InputApproval is the input_type of an approval's HUMAN_INPUT_REQUEST.
const InputApproval = "approval"

// Verdict is the approval policy's answer for one call.
type Verdict struct {
	Decision string // DecisionAllow, DecisionDeny or DecisionAsk
	Reason   string
	Rule     string // what decided, for the journal
}

// ApprovalPolicy decides a call from its tool name and resolved command
// line ("" for a tool that is not a command).
type ApprovalPolicy func(tool, command string) Verdict

// verdict applies the policy to call; with --approvals deny an ask is a
// deny.
func (e *Engine) verdict(call llm.ToolCall) Verdict {
	if e.Approve == nil || call.Name == AskHumanName {
		return Verdict{Decision: DecisionAllow}
	}
	v := e.Approve(call.Name, e.commandOf(call.Name, argsJSON(call.Arguments)))
	if v.Decision == DecisionAsk && e.Approvals == ApprovalsDeny {
		v.Decision = DecisionDeny
		v.Reason = strings.TrimSpace(v.Reason + " (it needs a human's approval, and approvals are off: --approvals deny)")
	}
	return v
}

// commandOf is the command line a call runs, as hooks see it.
func (e *Engine) commandOf(tool string, args json.RawMessage) string {
	if r, ok := e.Tools.(Resolver); ok {
		s, _ := r.Resolve(tool, args)
		return s
	}
	return ""
}

// deniedObservation is what the model sees of a call the policy or a
// human denied.
func deniedObservation(tool, by, reason string) string {
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("error: the call to %s was denied by %s: %s", tool, by, reason)
}

// approval handles a call the policy wants a human to approve: it asks on
// the terminal (-i) or pauses the run (WAITING_FOR_INPUT), and on resume
// applies the answer: an approved call runs, a denied one gets an error
// observation with the reason.
func (e *Engine) approval(ctx context.Context, it int, call llm.ToolCall, v Verdict, st callState) (*Outcome, error) {
	if answer, ok := st.received[call.ID]; ok {
		return e.decided(ctx, it, call, answer, false)
	}
	if st.asked[call.ID] {
		answer, ok, err := e.readResponse()
		if err != nil {
			return nil, err
		}
		if ok {
			return e.decided(ctx, it, call, answer, true)
		}
	}
	command := e.commandOf(call.Name, argsJSON(call.Arguments))
	prompt := fmt.Sprintf("approve %s %s", call.Name, string(argsJSON(call.Arguments)))
	if command != "" {
		prompt = fmt.Sprintf("approve %s: %s", call.Name, command)
	}
	if v.Reason != "" {
		prompt += " (" + v.Reason + ")"
	}
	if !st.asked[call.ID] {
		if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: call.ID, ToolName: call.Name,
			ToolArgs: argsJSON(call.Arguments), Prompt: prompt, InputType: InputApproval, Rule: v.Rule}); err != nil {
			return nil, err
		}
	}
	q := Interaction{Prompt: prompt, InputType: InputApproval, CallID: call.ID}
	if e.Interactive && e.Asker != nil {
		answer, err := e.Asker.Ask(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				out := e.outcome(StatusInterrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted while waiting for an approval"})
				return &out, nil
			}
			answer = "denied: no answer could be read (" + err.Error() + ")"
		}
		return e.decided(ctx, it, call, answer, true)
	}
	extra := map[string]any{"tool_name": call.Name, "tool_args": argsJSON(call.Arguments), "command": command, "reason": v.Reason, "rule": v.Rule}
	if e.ApprovalTimeout <= 0 {
		return e.pauseWith(it, call, q, true, extra)
	}
	// An orchestrator answers by writing response.txt: wait for it, and
	// deny when it does not come in time.
	if _, err := e.writeRequest(call, q, extra); err != nil {
		return nil, err
	}
	answer, ok, err := e.waitResponse(ctx, e.ApprovalTimeout)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		out := e.outcome(StatusInterrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted while waiting for an approval"})
		return &out, nil
	}
	if !ok {
		answer = fmt.Sprintf("denied: no answer within %s (--approval-timeout)", e.ApprovalTimeout)
	}
	return e.decided(ctx, it, call, answer, true)
}

// approvalPoll is how often a run waiting for an approval looks for
// response.txt.
const approvalPoll = 50 * time.Millisecond

// waitResponse waits up to d for interaction/response.txt; ok is false
// when it did not come (or ctx ended).
func (e *Engine) waitResponse(ctx context.Context, d time.Duration) (string, bool, error) {
	deadline := time.Now().Add(d)
	for {
		answer, ok, err := e.readResponse()
		if err != nil || ok {
			return answer, ok, err
		}
		if time.Now().After(deadline) {
			return "", false, nil
		}
		select {
		case <-ctx.Done():
			return "", false, nil
		case <-time.After(approvalPoll):
		}
	}
}

// hookAsked asks for the approval a pre-tool hook wanted for calls[0];
// once it is decided (on the terminal, or within --approval-timeout) the
// rest of the calls go on.
func (e *Engine) hookAsked(ctx context.Context, it int, calls []llm.ToolCall, v Verdict, st callState) (*Outcome, error) {
	if out, err := e.approval(ctx, it, calls[0], v, st); err != nil || out != nil {
		return out, err
	}
	return e.actBatch(ctx, it, calls[1:], st)
}

// ParseApproval reads an answer to an approval: "approved" (or approve,
// yes, y) approves; anything else denies, "denied: REASON" with that
// reason.
func ParseApproval(answer string) (approved bool, reason string) {
	a := strings.TrimSpace(answer)
	switch strings.ToLower(a) {
	case "approved", "approve", "yes", "y":
		return true, ""
	case "denied", "deny", "no", "n", "":
		return false, ""
	}
	for _, p := range []string{"denied:", "deny:", "no:"} {
		if len(a) >= len(p) && strings.EqualFold(a[:len(p)], p) {
			return false, strings.TrimSpace(a[len(p):])
		}
	}
	return false, a
}

// decided journals the human's decision (unless already there) and acts
// on it: an approved call runs, a denied one is answered with the reason.
func (e *Engine) decided(ctx context.Context, it int, call llm.ToolCall, answer string, journalIt bool) (*Outcome, error) {
	approved, reason := ParseApproval(answer)
	decision := "denied"
	if approved {
		decision = "approved"
	}
	if journalIt {
		if err := e.append(&journal.Event{Type: journal.HumanInputReceived, Iteration: it, CallID: call.ID, ToolName: call.Name,
			Response: answer, InputType: InputApproval, Decision: decision, By: e.ApprovedBy}); err != nil {
			return nil, err
		}
		e.Log.Printf("iteration %d: %s %s (call %s) by %s", it, decision, call.Name, call.ID, e.ApprovedBy)
	}
	if err := e.clearInteraction(); err != nil {
		return nil, err
	}
	p, err := e.prepare(ctx, it, call, true, true)
	if err != nil {
		return nil, err
	}
	p.denied = "" // the human decides, not the policy
	if !approved {
		by := "a human"
		if e.ApprovedBy != "" {
			by = e.ApprovedBy
		}
		p.denied = deniedObservation(call.Name, by, reason)
	}
	p.approved = approved
	res, started := e.execute(ctx, it, p)
	return e.finishCall(ctx, it, p, res, started)
}

// clearInteraction removes the interaction files once an answer is
// journaled.
func (e *Engine) clearInteraction() error {
	dir := filepath.Join(e.Run.RunDir, InteractionDir)
	for _, name := range []string{ResponseFile, RequestFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove interaction file: %w", err)
		}
	}
	_ = os.Remove(dir) // only when empty
	return nil
}
