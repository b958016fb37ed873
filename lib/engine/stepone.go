package engine

import (
	"context"
	"io"
	"log"
	"sync"

	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/llm"
)

// setup fills in what Start and Step need and the caller left unset: a
// logger that discards, and the records written behind the engine.
func (e *Engine) setup() {
	if e.Log == nil {
		e.Log = log.New(io.Discard, "", 0)
	}
	if e.Run.Records == nil {
		e.Run.Records = &Records{runDir: e.Run.RunDir, redact: e.Redact, log: e.Log}
	}
}

// Caller runs tool calls one at a time outside the loop, as delta mcp
// serve does for each call of an MCP client: each call takes the
// pipeline's steps (step.go) — the pre_tool_execution hook, the approval,
// ACTION_REQUEST, the toolbox, redaction, the post_tool_execution hook
// and ACTION_RESULT — journaled in iteration Run.Iteration of the engine.
// Calls may come concurrently: their tools run at the same time, their
// journal writes one at a time.
type Caller struct {
	e  *Engine
	mu sync.Mutex // the engine's journal and records
}

// NewCaller returns the Caller of e; e.Journal may be set later, before
// the first call.
func NewCaller(e *Engine) *Caller {
	e.setup()
	return &Caller{e: e}
}

// Call runs one call. A call that needs a human (a rule's or the hook's
// ask) is asked through ask at once; with ask nil, or in
// approval.ModeDeny, it is denied (fail-closed, Engine.NoHuman saying
// why). The outcome is what the model would have seen, and the record it
// names is on disk. The error is only for failing to write the run's own
// files.
func (c *Caller) Call(ctx context.Context, call llm.ToolCall, ask Asker) (ToolOutcome, error) {
	e := c.e
	it := e.Run.Iteration
	c.mu.Lock()
	p, err := e.prepare(ctx, e.newCall(call), false)
	c.mu.Unlock()
	if err == nil && p.ask != nil {
		err = c.askNow(ctx, it, &p, ask)
	}
	if err == nil {
		c.mu.Lock()
		err = e.request(it, p, true)
		c.mu.Unlock()
	}
	if err != nil {
		return ToolOutcome{}, err
	}
	res, started := e.execute(ctx, it, p)
	c.mu.Lock()
	_, err = e.finishCall(ctx, it, p, &res, started)
	c.mu.Unlock()
	if err == nil {
		res, err = c.escalateNow(ctx, it, p.call, res, ask)
	}
	if err != nil {
		return ToolOutcome{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Run.Records.Wait()
	return res, nil
}

// askNow asks ask for the approval p waits for and journals the question
// and the answer; a denial (or nobody to ask: ask nil) refuses the call.
func (c *Caller) askNow(ctx context.Context, it int, p *preparedCall, ask Asker) error {
	e := c.e
	v := *p.ask
	p.ask = nil
	if ask == nil {
		v = v.FailClosed(approval.ModeDeny, e.noHuman())
		p.refused = deniedObservation(p.call.Name, "the approval policy ("+v.Rule+")", v.Reason)
		return nil
	}
	a, st := newAsking(p.call, v), newCallState()
	c.mu.Lock()
	err := e.askApproval(it, a, st)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	answer, err := ask.Ask(ctx, a.question())
	if err != nil {
		answer = "denied: no answer could be had (" + err.Error() + ")"
	}
	c.mu.Lock()
	err = e.receive(it, p.call.ToolCall, answer, st)
	c.mu.Unlock()
	if ok, reason := approval.ParseAnswer(answer); !ok {
		p.refused = deniedObservation(p.call.Name, e.answerer(), reason)
	}
	return err
}
