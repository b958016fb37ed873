package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
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
}

func newCallState() callState {
	return callState{requested: map[string]bool{}, resolved: map[string]bool{}, asked: map[string]bool{}, received: map[string]string{}}
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
	if answer, ok := finalAnswer(events); ok && e.Message == "" {
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
		if !st.resolved[c.ID] {
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

// finalAnswer returns the text of the last THOUGHT when it is a final
// answer (no tool calls) that nothing followed but engine bookkeeping: a
// run that was answered but whose end the process did not finish
// recording.
func finalAnswer(events []journal.Event) (string, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		switch ev := events[i]; ev.Type {
		case journal.EngineStart, journal.HookExecution, journal.SystemMessage:
			continue
		case journal.EngineEnd:
			// Killed after ENGINE_END but before metadata.json said so.
			if runs.Status(ev.Status) != runs.Completed {
				return "", false
			}
		case journal.Thought:
			return ev.Content, len(ev.ToolCalls) == 0
		default:
			return "", false
		}
	}
	return "", false
}

// act runs the tool calls of one THOUGHT, skipping those already
// resolved. ask_human calls are handled one by one, in order; the other
// calls between them form a batch, run concurrently when the engine allows
// (Parallel). It returns a non-nil Outcome when the run must stop
// (waiting for input or interrupted).
func (e *Engine) act(ctx context.Context, it int, calls []llm.ToolCall, st callState) (*Outcome, error) {
	for i := 0; i < len(calls); {
		if calls[i].Name == tool.AskHumanName {
			if !st.resolved[calls[i].ID] {
				out, err := e.askHuman(ctx, it, calls[i], st)
				if err != nil || out != nil {
					return out, err
				}
			}
			i++
			continue
		}
		if v := e.verdict(calls[i]); (v.Decision == DecisionAsk || st.asked[calls[i].ID]) && !st.resolved[calls[i].ID] && !st.requested[calls[i].ID] {
			// A call waiting for a human is asked in its place, like
			// ask_human: the calls before it have run.
			out, err := e.approval(ctx, it, calls[i:], v, st)
			if err != nil || out != nil {
				return out, err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(calls) && calls[j].Name != tool.AskHumanName && e.verdict(calls[j]).Decision != DecisionAsk && !st.asked[calls[j].ID] {
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
func (e *Engine) actBatch(ctx context.Context, it int, calls []llm.ToolCall, st callState) (*Outcome, error) {
	var todo []llm.ToolCall
	for _, call := range calls {
		switch {
		case st.resolved[call.ID]:
		case st.requested[call.ID]:
			// The previous engine died while this call ran: its effects are
			// unknown, so it is reported rather than run a second time.
			if err := e.result(it, call, ToolOutcome{IsError: true, ExitCode: -1,
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
		p, err := e.prepare(ctx, it, call, true, false)
		if err != nil {
			return nil, err
		}
		if p.ask != nil {
			return e.hookAsked(ctx, it, todo[i:], *p.ask, st)
		}
		res, started := e.execute(ctx, it, p)
		if out, err := e.finishCall(ctx, it, p, res, started); err != nil || out != nil {
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
func (e *Engine) runParallel(ctx context.Context, it int, calls []llm.ToolCall, st callState) (*Outcome, error) {
	prepared := make([]preparedCall, 0, len(calls))
	for i, call := range calls {
		p, err := e.prepare(ctx, it, call, false, false)
		if err != nil {
			return nil, err
		}
		if p.ask != nil {
			// A hook wants a human for this call: the calls before it run
			// now, it and the ones after it once it is answered.
			if out, err := e.runPrepared(ctx, it, prepared); err != nil || out != nil {
				return out, err
			}
			return e.hookAsked(ctx, it, calls[i:], *p.ask, st)
		}
		prepared = append(prepared, p)
	}
	return e.runPrepared(ctx, it, prepared)
}

// runPrepared runs prepared calls at the same time, once their
// ACTION_REQUESTs are durable.
func (e *Engine) runPrepared(ctx context.Context, it int, prepared []preparedCall) (*Outcome, error) {
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
		out, err := e.finishCall(ctx, it, prepared[f.i], f.res, f.started)
		if err != nil {
			return nil, err
		}
		if out != nil && stop == nil {
			stop = out
		}
	}
	return stop, nil
}

// preparedCall is a call whose pre-tool hook ran and whose ACTION_REQUEST
// is journaled.
type preparedCall struct {
	call llm.ToolCall
	args json.RawMessage
	dec  HookDecision
	// ask is set, and nothing journaled, when the pre-tool hook wants a
	// human to approve the call first.
	ask *Verdict
	// denied is the observation of a call the approval policy or a human
	// refused ("" when it may run); approved marks a call a human
	// approved (the policy is not asked again).
	denied   string
	approved bool
}

// prepare runs the pre_tool_execution hook of call and journals its
// ACTION_REQUEST (synced now, or by the caller before the call starts).
//
// A hook's ask returns the call with ask set and journals nothing, unless
// a human has approved the call already (approved): then it runs.
func (e *Engine) prepare(ctx context.Context, it int, call llm.ToolCall, syncNow, approved bool) (preparedCall, error) {
	args := argsJSON(call.Arguments)
	// resolved_command is the command line as delta-engine's hooks read it
	// ("" for a tool that is not a command).
	resolved := e.commandOf(call.Name, args)
	payload, _ := json.Marshal(map[string]any{"tool_name": call.Name, "tool_args": args, "call_id": call.ID, "resolved_command": resolved})
	dec, err := e.hookApply(ctx, HookRequest{Name: "pre_tool_execution", Payload: payload, ToolName: call.Name},
		func(p json.RawMessage) error { return mergeToolArgs(&args, p) })
	if err != nil {
		return preparedCall{}, err
	}
	if dec.Action == HookModify {
		// The hook's arguments are what runs (and they are valid JSON even
		// when the model's were not).
		call.Arguments = string(args)
	}
	if dec.Action == HookAsk && !approved {
		return preparedCall{call: call, args: args, dec: dec,
			ask: &Verdict{Decision: DecisionAsk, Reason: dec.Reason, Rule: "the pre_tool_execution hook"}}, nil
	}
	ev := &journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: call.ID, ToolName: call.Name, ToolArgs: args}
	if syncNow {
		err = e.append(ev)
	} else {
		err = e.appendUnsynced(ev)
	}
	p := preparedCall{call: call, args: args, dec: dec}
	if v := e.verdict(call); v.Decision == DecisionDeny {
		p.denied = deniedObservation(call.Name, "the approval policy ("+v.Rule+")", v.Reason)
	}
	return p, err
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
	case p.dec.Action == HookBlock:
		reason := p.dec.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: the call to %s was blocked by the pre_tool_execution hook: %s", call.Name, reason)}, true
	case p.denied != "":
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: p.denied}, true
	case !json.Valid([]byte(orEmptyObject(call.Arguments))):
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: the arguments of %s are not valid JSON: %q", call.Name, call.Arguments)}, true
	case e.Tools == nil || !e.Tools.Has(call.Name):
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: unknown tool %q; available tools: %s", call.Name, e.toolNames())}, true
	case ctx.Err() != nil:
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: NotStartedObservation}, false
	}
	e.Log.Printf("iteration %d: run %s (%s)", it, call.Name, call.ID)
	res, err := e.Tools.Call(ctx, e.Run, call.ID, call.Name, p.args)
	if err != nil {
		res = ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: %v", err)}
	}
	// A tool may print a secret it found (a file, a config): what the
	// journal, the hooks, the live stream and the model see has it
	// redacted.
	res.Observation, res.Stdout, res.Stderr = e.Redact.String(res.Observation), e.Redact.String(res.Stdout), e.Redact.String(res.Stderr)
	res.Data = e.Redact.Bytes(res.Data)
	RedactOutputFiles(e.Redact, e.Run.RunDir, res.RecordPath)
	e.Log.Printf("iteration %d: %s (%s) exit %d, error %t, %d ms", it, call.Name, call.ID, res.ExitCode, res.IsError, res.DurationMS)
	return res, true
}

// finishCall runs the post-tool hook of a call that ran and journals its
// ACTION_RESULT; after an interrupt it returns the INTERRUPTED outcome.
func (e *Engine) finishCall(ctx context.Context, it int, p preparedCall, res ToolOutcome, started bool) (*Outcome, error) {
	call, args := p.call, p.args
	interrupted := ctx.Err() != nil
	if interrupted && started {
		res.IsError = true
		res.Observation = "error: interrupted by the user (the engine received a signal) before the tool finished; its effects are unknown\n" + res.Observation
	}
	// post_tool_execution runs before ACTION_RESULT is journaled so that a
	// modified observation is the one the model sees; the
	// io/tool_executions record keeps the tool's own output.
	post, _ := json.Marshal(map[string]any{"tool_name": call.Name, "tool_args": args, "call_id": call.ID,
		"observation": res.Observation, "exit_code": res.ExitCode, "is_error": res.IsError,
		"stdout": res.Stdout, "stderr": res.Stderr})
	if _, err := e.hookApply(ctx, HookRequest{Name: "post_tool_execution", Payload: post, ToolName: call.Name, ToolResult: res.Observation},
		func(p json.RawMessage) error { return mergeOutcome(&res, p) }); err != nil {
		return nil, err
	}
	if err := e.result(it, call, res); err != nil {
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
	return e.append(&journal.Event{Type: journal.ActionResult, Iteration: it, CallID: call.ID, ToolName: call.Name,
		ObservationContent: res.Observation, ExitCode: &code, IsError: res.IsError,
		DurationMS: res.DurationMS, ExecutionRef: res.RecordPath})
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

// redactJSONRecord redacts the strings of the JSON record at path.
func redactJSONRecord(r *redact.Redactor, path string) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxRedactedLog {
		return
	}
	if red, changed := redactJSON(r, data); changed {
		_ = os.WriteFile(path, red, 0o644)
	}
}

// redactJSON returns the JSON record data with its strings redacted and
// true, or data itself and false when it holds no secret. It works on the decoded strings,
// not the bytes: a secret holding a quote or an ampersand is escaped in
// the JSON and would not match there.
func redactJSON(r *redact.Redactor, data []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return data, false
	}
	v, changed := redactValue(r, v)
	if !changed {
		return data, false
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return data, false
	}
	return append(out, '\n'), true
}

// redactValue redacts every string in a decoded JSON value.
func redactValue(r *redact.Redactor, v any) (any, bool) {
	switch x := v.(type) {
	case string:
		red := r.String(x)
		return red, red != x
	case []any:
		changed := false
		for i := range x {
			var c bool
			x[i], c = redactValue(r, x[i])
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k := range x {
			var c bool
			x[k], c = redactValue(r, x[k])
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// maxRedactedLog is the largest output file whose secrets are redacted
// in place; larger ones are left as the tool wrote them.
const maxRedactedLog = 64 << 20

// RedactRecord replaces r's secret values in the io/tool_executions record
// recordPath (relative to runDir) and in the output files kept beside it
// (RedactOutputFiles), for records written without an engine's Records
// (delta mcp serve).
func RedactRecord(r *redact.Redactor, runDir, recordPath string) {
	if r == nil || recordPath == "" {
		return
	}
	redactJSONRecord(r, filepath.Join(runDir, recordPath))
	RedactOutputFiles(r, runDir, recordPath)
}

// RedactOutputFiles replaces r's secret values in the output files kept
// beside the record recordPath: a command's stdout.log and stderr.log, an
// MCP tool's output.txt and result.json. The record itself is redacted as
// it is written (Records); these files are written while the tool runs.
func RedactOutputFiles(r *redact.Redactor, runDir, recordPath string) {
	if r == nil || recordPath == "" {
		return
	}
	dir := filepath.Join(runDir, strings.TrimSuffix(recordPath, ".json"))
	redactJSONRecord(r, filepath.Join(dir, "result.json"))
	for _, name := range []string{"stdout.log", "stderr.log", "output.txt"} {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || fi.Size() == 0 || fi.Size() > maxRedactedLog {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || !r.Contains(data) {
			continue
		}
		_ = os.WriteFile(p, r.Bytes(data), fi.Mode().Perm())
	}
}
