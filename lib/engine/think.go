package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// think builds the context, asks the model and journals its THOUGHT.
func (e *Engine) think(ctx context.Context, it int, events []journal.Event) (llm.Response, *Outcome, error) {
	// The results the model is about to see go to the disk while the
	// request is built: the Sync before the call then waits for less.
	if j, ok := e.Journal.(syncAheader); ok {
		j.SyncAhead()
	}
	req, encoded, stopped, err := e.modelRequest(ctx, it, events)
	if err != nil || stopped != nil {
		return llm.Response{}, stopped, err
	}
	// The model answers what the journal holds (the last results): it is
	// made durable before the model sees it.
	if err := e.Journal.Sync(); err != nil {
		return llm.Response{}, nil, fmt.Errorf("sync journal: %w", err)
	}
	e.Run.Records.Wait() // the model may be shown a path into a record
	started := time.Now()
	callCtx := llm.WithPartialNotify(ctx, func(p llm.PartialAnswer) { e.journalPartial(it, p) })
	resp, callErr := e.Provider.Complete(callCtx, req)
	ref := e.Run.Records.invocation(it, started, time.Since(started), req, encoded, resp, callErr)
	if callErr != nil {
		if ctx.Err() != nil {
			out := e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted by signal"})
			return llm.Response{}, &out, nil
		}
		if errors.Is(callErr, llm.ErrContextOverflow) {
			out, jerr := e.failDetails(ctx, it, ErrTypeContextOverflow, fmt.Errorf("model request: %w", callErr), e.overflowHint(req))
			return llm.Response{}, out, jerr
		}
		out, jerr := e.fail(ctx, it, ErrTypeLLM, fmt.Errorf("model request: %w", callErr))
		return llm.Response{}, out, jerr
	}
	e.Log.Printf("iteration %d: model %s answered in %s: %d tool calls, %d+%d tokens", it, resp.Model,
		time.Since(started).Round(time.Microsecond), len(resp.ToolCalls), resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// The hook may rewrite what the model said before it is journaled and
	// acted on; io/invocations keeps the model's own answer.
	if e.hookConfigured(agent.PostLLMResponse) {
		respPayload, _ := json.Marshal(resp)
		if _, err := e.hookApply(ctx, HookRequest{Name: agent.PostLLMResponse, Payload: respPayload},
			func(p json.RawMessage) error { return mergeResponse(&resp, p) }); err != nil {
			return llm.Response{}, nil, err
		}
	}
	usage := resp.Usage
	model := resp.Model
	if model == "" {
		model = req.Params.Model
	}
	resp.ToolCalls = normalizeCalls(resp.ToolCalls, it)
	err = e.append(&journal.Event{Type: journal.Thought, Iteration: it, Content: resp.Content,
		ToolCalls: resp.ToolCalls, Usage: &usage, Model: model, InvocationRef: ref,
		ResponseID: resp.ID, Reasoning: resp.Reasoning})
	return resp, nil, err
}

// modelRequest builds the context of iteration it into the model
// request, through the pre_llm_request hook when there is one. encoded is
// the request as encoded for the hook (nil without one: the record encodes
// it behind the engine); a non-nil Outcome stops the run.
func (e *Engine) modelRequest(ctx context.Context, it int, events []journal.Event) (llm.Request, json.RawMessage, *Outcome, error) {
	msgs, err := e.Context.Build(ctx, e.Run)
	if err != nil {
		if ctx.Err() != nil {
			out := e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted by signal"})
			return llm.Request{}, nil, &out, nil
		}
		out, jerr := e.fail(ctx, it, ErrTypeContext, fmt.Errorf("build context: %w", err))
		return llm.Request{}, nil, out, jerr
	}
	for i := range msgs {
		// A context file or generator may hold a secret the journal never
		// did: the model, the hooks and the record get it redacted.
		msgs[i].Content = e.Redact.String(msgs[i].Content)
	}
	req := llm.Request{Params: e.Params, Messages: msgs, Tools: e.toolSpecs(), Turn: it - 1, OnText: e.OnText}
	if err := e.checkContextUsage(events, req, it); err != nil {
		return llm.Request{}, nil, nil, err
	}
	if !e.hookConfigured(agent.PreLLMRequest) {
		return req, nil, nil, nil
	}
	encoded, err := json.Marshal(req)
	if err != nil {
		return llm.Request{}, nil, nil, fmt.Errorf("encode model request: %w", err)
	}
	dec, err := e.hookApply(ctx, HookRequest{Name: agent.PreLLMRequest, Payload: encoded},
		func(p json.RawMessage) error { return mergeRequest(&req, p) })
	if err != nil {
		return llm.Request{}, nil, nil, err
	}
	if dec.Action == HookModify { // the hook's request is what is sent
		e.reloadParts(req.Messages)
		if encoded, err = json.Marshal(req); err != nil {
			return llm.Request{}, nil, nil, fmt.Errorf("encode model request: %w", err)
		}
	}
	return req, encoded, nil, nil
}

// ErrTypePartialAnswer is the error_details type of the ERROR event that
// keeps the text of an answer that broke off mid-stream. Unlike the other
// types it does not end the run: the provider asks the model again.
const ErrTypePartialAnswer = "partial_answer"

// journalPartial keeps the text of an answer that broke off mid-stream in
// an ERROR event of type partial_answer: no THOUGHT will hold it, and the
// provider asks again. A failure to journal it is logged, not fatal: the
// request goes on.
func (e *Engine) journalPartial(it int, p llm.PartialAnswer) {
	details, _ := json.Marshal(map[string]any{"type": ErrTypePartialAnswer, "attempt": p.Attempt, "partial_text": e.Redact.String(p.Text)})
	ev := &journal.Event{Type: journal.Error, Iteration: it, ErrorMessage: e.Redact.String(p.Err.Error()), ErrorDetails: details}
	if err := e.append(ev); err != nil {
		e.Log.Printf("iteration %d: keep the partial answer of attempt %d: %v", it, p.Attempt, err)
	}
}
