package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// The on-failure escalation (Codex's "on-failure" policy). A call the
// sandbox refused something (a write outside the workspace, a connect) is
// offered, when a human can answer, to run once more outside the sandbox.
// It is the last step of the pipeline (step.go), after the refused call's
// ACTION_RESULT:
//
//	ACTION_RESULT (sandbox_refused) → HUMAN_INPUT_REQUEST (input_type
//	escalation) → HUMAN_INPUT_RECEIVED → approved: pre_tool_execution hook
//	→ ACTION_REQUEST (unsandboxed) → the toolbox, unconfined → redaction →
//	post_tool_execution hook → ACTION_RESULT (unsandboxed)
//
// The question pauses the run as an approval does (request.json, exit 101,
// continue --approve / --deny), is asked on the terminal with -i, or waits
// --approval-timeout. Denied, the model sees the refusal; approved, the
// result of the run outside, which replaces it (contextgen). With nobody
// to answer (--approvals deny) nothing is asked. Every state is read back
// from the journal: a run killed at any point asks again when the question
// was not journaled, and never runs a call outside twice.

// Escalator is a Toolbox whose tools the sandbox confines and that can run
// a call outside it.
type Escalator interface {
	// Unsandboxed returns the toolbox that runs name unconfined; false
	// when name is not confined or cannot run outside.
	Unsandboxed(name string) (Toolbox, bool)
}

// escState is what the journal holds about the escalations of the last
// THOUGHT's calls, by call id.
type escState struct {
	refused   map[string]bool   // ACTION_RESULT with sandbox_refused
	asked     map[string]bool   // HUMAN_INPUT_REQUEST, input_type escalation
	received  map[string]string // HUMAN_INPUT_RECEIVED, input_type escalation
	requested map[string]bool   // ACTION_REQUEST unsandboxed
	resolved  map[string]bool   // ACTION_RESULT unsandboxed
}

func newEscState() escState {
	return escState{refused: map[string]bool{}, asked: map[string]bool{}, received: map[string]string{},
		requested: map[string]bool{}, resolved: map[string]bool{}}
}

// note records ev when it is about an escalation; consumed is false for
// the events the rest of the call state reads (a refused ACTION_RESULT is
// the call's result too).
func (s escState) note(ev *journal.Event) (consumed bool) {
	switch {
	case ev.Type == journal.ActionRequest && ev.Unsandboxed:
		s.requested[ev.CallID] = true
	case ev.Type == journal.ActionResult && ev.Unsandboxed:
		s.resolved[ev.CallID] = true
	case ev.Type == journal.ActionResult && ev.SandboxRefused:
		s.refused[ev.CallID] = true
		return false
	case ev.Type == journal.HumanInputRequest && ev.InputType == runs.InputEscalation:
		s.asked[ev.CallID] = true
	case ev.Type == journal.HumanInputReceived && ev.InputType == runs.InputEscalation:
		s.received[ev.CallID] = ev.Response
	default:
		return false
	}
	return true
}

// open reports an escalation of call id not finished: refused, and
// neither denied nor run outside.
func (s escState) open(id string) bool {
	if !s.refused[id] || s.resolved[id] {
		return false
	}
	answer, ok := s.received[id]
	approved, _ := approval.ParseAnswer(answer)
	return !ok || approved
}

// outside is the toolbox that runs name outside the sandbox, when the run
// offers escalations: a human can answer, the sandbox's escalate is not
// off and the tool can run unconfined.
func (e *Engine) outside(name string) (Toolbox, bool) {
	if e.NoEscalation || e.Approvals == approval.ModeDeny {
		return nil, false
	}
	x, ok := e.Tools.(Escalator)
	if !ok {
		return nil, false
	}
	return x.Unsandboxed(name)
}

// escalateRefused is the escalation step of a call that just ran: nothing
// unless the sandbox refused it.
func (e *Engine) escalateRefused(ctx context.Context, it int, c toolCall, res ToolOutcome, st callState) (*Outcome, error) {
	if !res.SandboxRefused || res.Unsandboxed {
		return nil, nil
	}
	st.esc.refused[c.ID] = true
	return e.escalate(ctx, it, c, st)
}

// escalate offers call c, which the sandbox refused, to run once outside
// it, and runs it there once a human approved. A nil Outcome goes on with
// the turn; a non-nil one stops the run (waiting for the answer,
// interrupted).
func (e *Engine) escalate(ctx context.Context, it int, c toolCall, st callState) (*Outcome, error) {
	s, id := st.esc, c.ID
	if !s.open(id) {
		return nil, nil
	}
	if s.requested[id] {
		// The engine stopped while the call ran outside: its effects are
		// unknown, and it never runs outside twice.
		s.resolved[id] = true
		return nil, e.result(it, c.ToolCall, ToolOutcome{IsError: true, ExitCode: -1, Observation: InterruptedCallObservation, Unsandboxed: true})
	}
	if _, ok := s.received[id]; !ok {
		if out, err := e.askEscalation(ctx, it, c, st); err != nil || out != nil {
			return out, err
		}
	}
	answer, ok := s.received[id]
	if !ok {
		return nil, nil // not offered
	}
	if err := e.clearInteraction(); err != nil {
		return nil, err
	}
	if approved, _ := approval.ParseAnswer(answer); !approved {
		return nil, nil // the refused result stands
	}
	c.unsandboxed = true
	p, err := e.prepare(ctx, c, true)
	if err != nil {
		return nil, err
	}
	if err := e.request(it, p, true); err != nil {
		return nil, err
	}
	s.requested[id] = true
	res, started := e.execute(ctx, it, p)
	out, err := e.finishCall(ctx, it, p, &res, started)
	s.resolved[id] = err == nil
	return out, err
}

// escalationPrompt is the question of an escalation.
func escalationPrompt(c toolCall) string {
	what := string(c.args)
	if c.command != "" {
		what = c.command
	}
	return fmt.Sprintf("run %s outside the sandbox: %s (the sandbox refused it)", c.Name, what)
}

// askEscalation journals the question (once) and gets its answer: from
// response.txt (continue --approve / --deny), the terminal (-i) or within
// --approval-timeout; otherwise the run pauses for it. It journals the
// answer, or nothing when the run does not offer escalations.
func (e *Engine) askEscalation(ctx context.Context, it int, c toolCall, st callState) (*Outcome, error) {
	s, id := st.esc, c.ID
	if !s.asked[id] {
		if _, ok := e.outside(c.Name); !ok {
			return nil, nil
		}
		if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: id, ToolName: c.Name,
			ToolArgs: c.args, Prompt: escalationPrompt(c), InputType: runs.InputEscalation}); err != nil {
			return nil, err
		}
		s.asked[id] = true
	} else if _, ok := e.outside(c.Name); !ok {
		// Asked by an earlier invocation; nobody answers this one.
		return nil, e.escalationAnswer(it, c, "denied: "+e.noHuman(), st)
	}
	if answer, ok, err := e.escalationResponse(id); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return nil, e.escalationAnswer(it, c, answer, st)
	}
	q := Interaction{Prompt: escalationPrompt(c), InputType: runs.InputEscalation, CallID: id}
	if e.Interactive && e.Asker != nil {
		answer, err := e.Asker.Ask(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return e.interruptedWaiting(), nil
			}
			answer = "denied: no answer could be read (" + err.Error() + ")"
		}
		return nil, e.escalationAnswer(it, c, answer, st)
	}
	q.Pending = []Interaction{q}
	q, err := e.writeRequest(c.ToolCall, q, map[string]any{"tool_name": c.Name, "tool_args": c.args, "command": c.command,
		"pending": []map[string]any{{"call_id": id, "tool_name": c.Name, "tool_args": c.args, "command": c.command, "prompt": q.Prompt}}})
	if err != nil {
		return nil, err
	}
	if e.ApprovalTimeout <= 0 {
		e.Log.Printf("iteration %d: waiting for the escalation of %s (call %s)", it, c.Name, id)
		out := e.outcome(runs.WaitingForInput, nil)
		out.Interaction = &q
		return &out, nil
	}
	if _, _, err := e.waitResponse(ctx, e.ApprovalTimeout); err != nil {
		return nil, err
	} else if ctx.Err() != nil {
		return e.interruptedWaiting(), nil
	}
	answer, ok, err := e.escalationResponse(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		answer = approval.Unanswered(e.ApprovalTimeout)
	}
	return nil, e.escalationAnswer(it, c, answer, st)
}

// escalationResponse is the answer response.txt holds for call id (the
// whole text, or its "id: answer" line), and removes the file.
func (e *Engine) escalationResponse(id string) (string, bool, error) {
	text, ok, err := e.readResponse()
	if err != nil || !ok {
		return "", false, err
	}
	answers, _ := Answers(text, []string{id})
	answer, ok := answers[id]
	if !ok {
		return "", false, nil
	}
	if err := os.Remove(filepath.Join(e.Run.RunDir, runs.InteractionDir, runs.ResponseFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("remove interaction response: %w", err)
	}
	return answer, true, nil
}

// escalationAnswer journals the answer to call c's escalation.
func (e *Engine) escalationAnswer(it int, c toolCall, answer string, st callState) error {
	if err := e.decision(it, c.ToolCall, answer, runs.InputEscalation); err != nil {
		return err
	}
	st.esc.received[c.ID] = answer
	return nil
}

// escalateNow is the escalation step of a Caller's call: a call the
// sandbox refused is asked about through ask at once (with nobody to ask
// it is not offered) and, approved, run outside; res is what the caller
// gets, the run outside's outcome then.
func (c *Caller) escalateNow(ctx context.Context, it int, call toolCall, res ToolOutcome, ask Asker) (ToolOutcome, error) {
	e := c.e
	if !res.SandboxRefused || ask == nil {
		return res, nil
	}
	if _, ok := e.outside(call.Name); !ok {
		return res, nil
	}
	st := newCallState()
	c.mu.Lock()
	err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: call.ID, ToolName: call.Name,
		ToolArgs: call.args, Prompt: escalationPrompt(call), InputType: runs.InputEscalation})
	c.mu.Unlock()
	if err != nil {
		return res, err
	}
	answer, err := ask.Ask(ctx, Interaction{Prompt: escalationPrompt(call), InputType: runs.InputEscalation, CallID: call.ID})
	if err != nil {
		answer = "denied: no answer could be had (" + err.Error() + ")"
	}
	c.mu.Lock()
	err = e.escalationAnswer(it, call, answer, st)
	c.mu.Unlock()
	if approved, _ := approval.ParseAnswer(answer); err != nil || !approved {
		return res, err
	}
	call.unsandboxed = true
	c.mu.Lock()
	p, err := e.prepare(ctx, call, true)
	if err == nil {
		err = e.request(it, p, true)
	}
	c.mu.Unlock()
	if err != nil {
		return res, err
	}
	out, started := e.execute(ctx, it, p)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = e.finishCall(ctx, it, p, &out, started)
	return out, err
}
