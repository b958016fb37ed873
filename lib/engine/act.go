package engine

import (
	"context"
	"fmt"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// callState records, for the tool calls of the last THOUGHT, what the
// journal already holds about each (by call ID). It is empty for a fresh
// THOUGHT and filled on resume.
type callState struct {
	requested map[string]bool // ACTION_REQUEST journaled
	resolved  map[string]bool // ACTION_RESULT journaled
	asked     map[string]bool // HUMAN_INPUT_REQUEST journaled
	received  map[string]string
	esc       escState // the escalations (escalate.go)
}

func newCallState() callState {
	return callState{requested: map[string]bool{}, resolved: map[string]bool{}, asked: map[string]bool{}, received: map[string]string{},
		esc: newEscState()}
}

// pending finds the last THOUGHT's tool calls and what happened to them.
func pending(events []journal.Event) (calls []llm.ToolCall, it int, st callState) {
	last := -1
	for i, ev := range events {
		if ev.Type == journal.Thought {
			last = i
		}
	}
	st = newCallState()
	if last < 0 {
		return nil, 0, st
	}
	for _, ev := range events[last+1:] {
		if st.esc.note(&ev) {
			continue
		}
		switch ev.Type {
		case journal.ActionRequest:
			st.requested[ev.CallID] = true
		case journal.ActionResult:
			st.resolved[ev.CallID] = true
		case journal.HumanInputRequest:
			st.asked[ev.CallID] = true
		case journal.HumanInputReceived:
			st.received[ev.CallID] = ev.Response
		}
	}
	return events[last].ToolCalls, events[last].Iteration, st
}

// resume completes what a previous invocation left open: tool calls of the
// last THOUGHT without an ACTION_RESULT (a crash, an interrupt, or
// ask_human waiting for its answer). It also recognises a run whose final
// answer was journaled but whose end was not. done reports that the run
// stops here with out.
func (e *Engine) resume(ctx context.Context, events []journal.Event) (out Outcome, done bool, err error) {
	if answer, ok := runs.UnendedAnswer(events); ok && e.Message == "" {
		// The previous engine died after the model's final answer was
		// journaled but before the run ended: the run is complete.
		e.Log.Printf("resume: the last iteration already answered; the run ends")
		out := e.outcome(runs.Completed, nil)
		out.ResultText = answer
		out.Result = ParseResult(answer)
		return out, true, nil
	}
	calls, it, st := pending(events)
	open := 0
	for _, c := range calls {
		if !st.resolved[c.ID] || st.esc.open(c.ID) {
			open++
		}
	}
	if open == 0 {
		return Outcome{}, false, nil
	}
	e.Run.Iteration = it
	e.Log.Printf("resume: %d unfinished tool calls of iteration %d", open, it)
	o, err := e.act(ctx, it, calls, st)
	if err != nil || o != nil {
		if o == nil {
			return Outcome{}, true, err
		}
		return *o, true, err
	}
	return Outcome{}, false, nil
}

// act runs the tool calls of one THOUGHT, skipping those already
// resolved. ask_human calls are handled one by one, in order; so is a call
// the approval policy has wait for a human (asked with the later calls
// that wait too, so that one pause shows them all). The other calls
// between them form a batch, run concurrently when the engine allows
// (Parallel). It returns a non-nil Outcome when the run must stop
// (waiting for input or interrupted).
func (e *Engine) act(ctx context.Context, it int, model []llm.ToolCall, st callState) (*Outcome, error) {
	calls := e.newCalls(model)
	waits := func(c toolCall) bool {
		return c.Name != tool.AskHumanName && (c.policy.Decision == agent.ApproveAsk || st.asked[c.ID])
	}
	for i := 0; i < len(calls); {
		c := calls[i]
		if st.resolved[c.ID] && st.esc.open(c.ID) {
			// Its escalation was left undecided or unfinished.
			if out, err := e.escalate(ctx, it, c, st); err != nil || out != nil {
				return out, err
			}
			i++
			continue
		}
		if c.Name == tool.AskHumanName {
			if !st.resolved[c.ID] {
				out, err := e.askHuman(ctx, it, c.ToolCall, st)
				if err != nil || out != nil {
					return out, err
				}
			}
			i++
			continue
		}
		if waits(c) && !st.resolved[c.ID] && !st.requested[c.ID] {
			// A call waiting for a human is asked in its place, like
			// ask_human: the calls before it have run.
			out, err := e.waitApproval(ctx, it, calls[i:], c.policy, st)
			if err != nil || out != nil {
				return out, err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(calls) && calls[j].Name != tool.AskHumanName && !waits(calls[j]) {
			j++
		}
		if out, err := e.actBatch(ctx, it, calls[i:j], st); err != nil || out != nil {
			return out, err
		}
		i = j
	}
	return nil, nil
}

// actBatch runs calls (none of them ask_human): one after the other, or,
// when the engine allows and there are several, concurrently.
func (e *Engine) actBatch(ctx context.Context, it int, calls []toolCall, st callState) (*Outcome, error) {
	var todo []toolCall
	for _, call := range calls {
		switch {
		case st.resolved[call.ID]:
		case st.requested[call.ID]:
			// The previous engine died while this call ran: its effects are
			// unknown, so it is reported rather than run a second time.
			if err := e.result(it, call.ToolCall, ToolOutcome{IsError: true, ExitCode: -1,
				Observation: InterruptedCallObservation}); err != nil {
				return nil, err
			}
		default:
			todo = append(todo, call)
		}
	}
	if e.Parallel > 1 && len(todo) > 1 {
		return e.runParallel(ctx, it, todo, st)
	}
	for i, call := range todo {
		p, err := e.prepare(ctx, call, false)
		if err != nil {
			return nil, err
		}
		if p.ask != nil {
			return e.askFirst(ctx, it, p, todo[i+1:], st)
		}
		if err := e.request(it, p, true); err != nil {
			return nil, err
		}
		res, started := e.execute(ctx, it, p)
		if out, err := e.finishCall(ctx, it, p, &res, started); err != nil || out != nil {
			return out, err
		}
		if out, err := e.escalateRefused(ctx, it, p.call, res, st); err != nil || out != nil {
			return out, err
		}
	}
	return nil, nil
}

// runParallel runs a batch concurrently. Pre-tool hooks run in call order
// and every ACTION_REQUEST is durable before any call starts, so a crash
// at any moment leaves each call either with its result or recorded as
// requested (reported, never run twice, on resume). Results are journaled
// as the calls finish; the model gets them in call order (the journal
// source orders tool results by their call).
func (e *Engine) runParallel(ctx context.Context, it int, calls []toolCall, st callState) (*Outcome, error) {
	prepared := make([]preparedCall, 0, len(calls))
	for i, call := range calls {
		p, err := e.prepare(ctx, call, false)
		if err != nil {
			return nil, err
		}
		if p.ask != nil {
			// A human must approve this call first: the calls before it
			// run now, it and the ones after it once it is answered.
			if out, err := e.runPrepared(ctx, it, prepared, st); err != nil || out != nil {
				return out, err
			}
			return e.askFirst(ctx, it, p, calls[i+1:], st)
		}
		if err := e.request(it, p, false); err != nil {
			return nil, err
		}
		prepared = append(prepared, p)
	}
	return e.runPrepared(ctx, it, prepared, st)
}

// runPrepared runs prepared calls at the same time, once their
// ACTION_REQUESTs are durable; the escalations of those the sandbox
// refused are asked after, in call order.
func (e *Engine) runPrepared(ctx context.Context, it int, prepared []preparedCall, st callState) (*Outcome, error) {
	if len(prepared) == 0 {
		return nil, nil
	}
	if err := e.Journal.Sync(); err != nil {
		return nil, fmt.Errorf("sync journal: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failed journal write stops the calls still running
	type finished struct {
		i       int
		res     ToolOutcome
		started bool
	}
	done := make(chan finished, len(prepared))
	slots := make(chan struct{}, e.Parallel)
	for i := range prepared {
		go func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			res, started := e.execute(ctx, it, prepared[i])
			done <- finished{i, res, started}
		}()
	}
	var stop *Outcome
	for range prepared {
		f := <-done
		out, err := e.finishCall(ctx, it, prepared[f.i], &f.res, f.started)
		if err != nil {
			return nil, err
		}
		if out != nil && stop == nil {
			stop = out
		}
		if f.res.SandboxRefused {
			st.esc.refused[prepared[f.i].call.ID] = true
		}
	}
	if stop != nil {
		return stop, nil
	}
	for _, p := range prepared {
		if out, err := e.escalate(ctx, it, p.call, st); err != nil || out != nil {
			return out, err
		}
	}
	return nil, nil
}
