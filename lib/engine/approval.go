package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// deniedObservation is what the model sees of a call the policy or a
// human denied.
func deniedObservation(tool, by, reason string) string {
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("error: the call to %s was denied by %s: %s", tool, by, reason)
}

// asking is a call waiting for a human's approval, why, and what is shown
// of it: its command line (resolved once) and the question.
type asking struct {
	call   toolCall
	v      approval.Verdict
	prompt string
}

// newAsking resolves what a call waiting for an approval shows: the tool,
// its command line (or arguments) and the reason.
func newAsking(call toolCall, v approval.Verdict) asking {
	a := asking{call: call, v: v}
	a.prompt = fmt.Sprintf("approve %s %s", call.Name, string(call.args))
	if call.command != "" {
		a.prompt = fmt.Sprintf("approve %s: %s", call.Name, call.command)
	}
	if v.Reason != "" {
		a.prompt += " (" + v.Reason + ")"
	}
	return a
}

// waitApproval handles calls[0], which waits for a human's approval (v). The
// later calls of the turn the policy also has wait are asked with it, so
// that one pause shows every call waiting. The answer comes on the
// terminal (-i), within --approval-timeout, or after a pause
// (WAITING_FOR_INPUT) from continue; an approved call runs, a denied one
// gets an error observation with the reason.
func (e *Engine) waitApproval(ctx context.Context, it int, calls []toolCall, v approval.Verdict, st callState) (*Outcome, error) {
	call := calls[0]
	if answer, ok := st.received[call.ID]; ok {
		return e.decided(ctx, it, call, answer, st)
	}
	group := append([]asking{newAsking(call, v)}, alsoWaiting(calls[1:], st)...)
	if err := e.takeAnswers(it, group, st); err != nil {
		return nil, err
	}
	if answer, ok := st.received[call.ID]; ok {
		return e.decided(ctx, it, call, answer, st)
	}
	group = unanswered(group, st)
	if e.Interactive && e.Asker != nil {
		// On the terminal the calls are asked one at a time, in order.
		group = group[:1]
	}
	for _, a := range group {
		if err := e.askApproval(it, a, st); err != nil {
			return nil, err
		}
	}
	if e.Interactive && e.Asker != nil {
		answer, err := e.Asker.Ask(ctx, group[0].question())
		if err != nil {
			if ctx.Err() != nil {
				return e.interruptedWaiting(), nil
			}
			answer = "denied: no answer could be read (" + err.Error() + ")"
		}
		if err := e.receive(it, call.ToolCall, answer, st); err != nil {
			return nil, err
		}
		return e.decided(ctx, it, call, answer, st)
	}
	q, err := e.writeApprovalRequest(group)
	if err != nil {
		return nil, err
	}
	if e.ApprovalTimeout <= 0 {
		e.Log.Printf("iteration %d: waiting for %d approval(s)", it, len(group))
		out := e.outcome(runs.WaitingForInput, nil)
		out.Interaction = &q
		return &out, nil
	}
	// An orchestrator answers by writing response.txt: wait for it, and
	// deny what is not answered in time.
	if _, ok, err := e.waitResponse(ctx, e.ApprovalTimeout); err != nil {
		return nil, err
	} else if ctx.Err() != nil {
		return e.interruptedWaiting(), nil
	} else if ok {
		if err := e.takeAnswers(it, group, st); err != nil {
			return nil, err
		}
	}
	for _, a := range unanswered(group, st) {
		if err := e.receive(it, a.call.ToolCall, approval.Unanswered(e.ApprovalTimeout), st); err != nil {
			return nil, err
		}
	}
	return e.decided(ctx, it, call, st.received[call.ID], st)
}

// alsoWaiting returns the calls the policy has wait for a human (or that
// were asked already) and that have no answer yet.
func alsoWaiting(calls []toolCall, st callState) []asking {
	var out []asking
	for _, c := range calls {
		if c.Name == tool.AskHumanName || st.resolved[c.ID] || st.requested[c.ID] {
			continue
		}
		if _, ok := st.received[c.ID]; ok {
			continue
		}
		if c.policy.Decision == agent.ApproveAsk || st.asked[c.ID] {
			out = append(out, newAsking(c, c.policy))
		}
	}
	return out
}

// unanswered keeps the calls of group without an answer.
func unanswered(group []asking, st callState) []asking {
	var out []asking
	for _, a := range group {
		if _, ok := st.received[a.call.ID]; !ok {
			out = append(out, a)
		}
	}
	return out
}

func (e *Engine) interruptedWaiting() *Outcome {
	out := e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted while waiting for an approval"})
	return &out
}

// question is the Interaction that asks for the call's approval.
func (a asking) question() Interaction {
	return Interaction{Prompt: a.prompt, InputType: runs.InputApproval, CallID: a.call.ID}
}

// askApproval journals the HUMAN_INPUT_REQUEST of a call (once).
func (e *Engine) askApproval(it int, a asking, st callState) error {
	if st.asked[a.call.ID] {
		return nil
	}
	if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: a.call.ID, ToolName: a.call.Name,
		ToolArgs: a.call.args, Prompt: a.prompt, InputType: runs.InputApproval, Rule: a.v.Rule}); err != nil {
		return err
	}
	st.asked[a.call.ID] = true
	return nil
}

// writeApprovalRequest writes interaction/request.json for the calls of
// group: the first one's fields at the top (one call waiting reads as
// before) and every call under "pending".
func (e *Engine) writeApprovalRequest(group []asking) (Interaction, error) {
	pending := make([]map[string]any, len(group))
	q := group[0].question()
	for i, a := range group {
		pending[i] = map[string]any{"call_id": a.call.ID, "tool_name": a.call.Name, "tool_args": a.call.args,
			"command": a.call.command, "reason": a.v.Reason, "rule": a.v.Rule, "prompt": a.prompt}
		q.Pending = append(q.Pending, a.question())
	}
	extra := map[string]any{"pending": pending}
	for _, k := range []string{"tool_name", "tool_args", "command", "reason", "rule"} {
		extra[k] = pending[0][k]
	}
	return e.writeRequest(group[0].call.ToolCall, q, extra)
}

// takeAnswers journals the answers response.txt holds for the calls of
// group (see Answers) and removes the file. A call whose answer is already
// journaled keeps it.
func (e *Engine) takeAnswers(it int, group []asking, st callState) error {
	text, ok, err := e.readResponse()
	if err != nil || !ok {
		return err
	}
	// Only a call asked for (journaled) can be answered.
	var ids []string
	for _, a := range group {
		if st.asked[a.call.ID] {
			ids = append(ids, a.call.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	answers, ignored := Answers(text, ids)
	if len(ignored) > 0 && len(answers) == 0 {
		return nil // nothing for these calls: the file stays for whoever reads it
	}
	for _, line := range ignored {
		e.Log.Printf("warning: response.txt line %q names no call waiting for an approval; ignored", line)
	}
	for _, a := range group {
		answer, ok := answers[a.call.ID]
		if _, done := st.received[a.call.ID]; !ok || done {
			continue
		}
		if err := e.receive(it, a.call.ToolCall, answer, st); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(e.Run.RunDir, runs.InteractionDir, runs.ResponseFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove interaction response: %w", err)
	}
	return nil
}

// Answers reads response.txt for calls waiting for an approval (ids, in
// order). Lines "CALL_ID: ANSWER" answer one call each; any other text is
// one answer for every call. ignored lists lines of the first form that
// name no call of ids.
func Answers(text string, ids []string) (answers map[string]string, ignored []string) {
	answers = map[string]string{}
	waiting := map[string]bool{}
	for _, id := range ids {
		waiting[id] = true
	}
	perCall := false
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		lines = append(lines, line)
		if id, _, ok := strings.Cut(line, ":"); ok && waiting[strings.TrimSpace(id)] {
			perCall = true
		}
	}
	if !perCall {
		for _, id := range ids {
			answers[id] = strings.TrimSpace(text)
		}
		return answers, nil
	}
	for _, line := range lines {
		id, answer, _ := strings.Cut(line, ":")
		if id = strings.TrimSpace(id); waiting[id] {
			answers[id] = strings.TrimSpace(answer)
		} else {
			ignored = append(ignored, line)
		}
	}
	return answers, ignored
}

// receive journals a human's answer to an approval.
func (e *Engine) receive(it int, call llm.ToolCall, answer string, st callState) error {
	if err := e.decision(it, call, answer, runs.InputApproval); err != nil {
		return err
	}
	st.received[call.ID] = answer
	return nil
}

// decision journals the answer to a question about call of inputType (an
// approval or an escalation): who decided what.
func (e *Engine) decision(it int, call llm.ToolCall, answer, inputType string) error {
	approved, reason := approval.ParseAnswer(answer)
	decision := "denied"
	if approved {
		decision = "approved"
	}
	// A call nobody answered in time was decided by no one: the journal
	// names nobody rather than the user who would have answered.
	by := e.ApprovedBy
	if !approved && approval.IsUnanswered(reason) {
		by = ""
	}
	if err := e.append(&journal.Event{Type: journal.HumanInputReceived, Iteration: it, CallID: call.ID, ToolName: call.Name,
		Response: answer, InputType: inputType, Decision: decision, By: by}); err != nil {
		return err
	}
	e.Log.Printf("iteration %d: %s %s (call %s) by %q", it, decision, call.Name, call.ID, by)
	return nil
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

// askFirst asks for the approval p waits for (p.ask); once it is decided
// (on the terminal, or within --approval-timeout) the calls of rest go on.
func (e *Engine) askFirst(ctx context.Context, it int, p preparedCall, rest []toolCall, st callState) (*Outcome, error) {
	calls := append([]toolCall{p.call}, rest...)
	if out, err := e.waitApproval(ctx, it, calls, *p.ask, st); err != nil || out != nil {
		return out, err
	}
	return e.actBatch(ctx, it, rest, st)
}

// decided acts on a human's journaled answer: an approved call runs
// (unless its pre_tool_execution hook now blocks it), a denied one is
// answered with the reason.
func (e *Engine) decided(ctx context.Context, it int, call toolCall, answer string, st callState) (*Outcome, error) {
	approved, reason := approval.ParseAnswer(answer)
	if err := e.clearInteraction(); err != nil {
		return nil, err
	}
	p, err := e.prepare(ctx, call, true)
	if err != nil {
		return nil, err
	}
	switch {
	case !approved && approval.IsUnanswered(reason):
		p.refused = fmt.Sprintf("error: the call to %s was denied: %s (nobody answered the approval in time)", call.Name, reason)
	case !approved:
		p.refused = deniedObservation(call.Name, e.answerer(), reason)
	}
	if err := e.request(it, p, true); err != nil {
		return nil, err
	}
	res, started := e.execute(ctx, it, p)
	if out, err := e.finishCall(ctx, it, p, &res, started); err != nil || out != nil {
		return out, err
	}
	return e.escalateRefused(ctx, it, p.call, res, st)
}

// answerer names who answers approvals, for a denial's observation.
func (e *Engine) answerer() string {
	if e.ApprovedBy != "" {
		return e.ApprovedBy
	}
	return "a human"
}

// clearInteraction removes the interaction files once an answer is
// journaled.
func (e *Engine) clearInteraction() error {
	dir := filepath.Join(e.Run.RunDir, runs.InteractionDir)
	for _, name := range []string{runs.ResponseFile, runs.RequestFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove interaction file: %w", err)
		}
	}
	_ = os.Remove(dir) // only when empty
	return nil
}
