package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// DefaultMaxIterations is the iteration limit when neither the command line
// nor agent.yaml sets one (seeds/000 §2.1.1).
const DefaultMaxIterations = 30

// Journal is the run's event log as the engine uses it. Append assigns the
// event's seq and timestamp and writes it where readers see it; Sync makes
// everything appended durable (the engine syncs before it acts on an
// event, see append); Events reads the whole log back (a torn final line is
// ignored).
type Journal interface {
	Append(ev *journal.Event) error
	Sync() error
	Events() ([]journal.Event, error)
}

// syncAheader is a Journal that can start a sync without waiting for it
// (FileJournal).
type syncAheader interface{ SyncAhead() }

// Asker answers ask_human synchronously (interactive mode, -i).
type Asker interface {
	Ask(ctx context.Context, q Interaction) (string, error)
}

// Engine runs one invocation of the think-act-observe loop over a run that
// already exists on disk. It keeps no state between iterations: everything
// it decides is read back from the journal.
type Engine struct {
	Run      RunInfo
	Journal  Journal
	Provider llm.Provider
	Context  ContextBuilder
	Hooks    HookRunner // nil: no hooks
	Tools    Toolbox
	// Params are the sampling parameters sent with every request.
	Params llm.Params
	// MaxIterations bounds the iterations of this invocation (a continued
	// run gets a fresh budget); 0 means DefaultMaxIterations.
	MaxIterations int
	// Interactive answers ask_human through Asker instead of pausing.
	Interactive bool
	Asker       Asker
	// Message is the user message this invocation starts with (the task of
	// a new run, or continue -m for a run that is not waiting for input).
	Message string
	// Observe, when set, sees every event as it is journaled (the live
	// stream on stderr).
	Observe func(ev journal.Event)
	// Redact replaces secret values in what the engine journals and sends:
	// tool results and the requests to the model. nil redacts nothing.
	Redact *redact.Redactor
	// Log is engine.log; nil discards.
	Log *log.Logger
	// OnIteration is called when an iteration starts (metadata updates).
	OnIteration func(iteration int)
	// LoopWindow is how many of the last tool calls loop detection
	// checks for a repeating pattern; 0 means DefaultLoopWindow, negative
	// disables it.
	LoopWindow int
	// Parallel is how many tool calls of one turn may run at once; 0 or 1
	// runs them one after the other.
	Parallel int
	// OnText, when set, gets the model's text as it streams in (display
	// only: the THOUGHT still holds the whole answer).
	OnText func(delta string)
	// Approve is the agent's approval rules (nil allows every call);
	// Approvals is what a call that needs a human, by a rule or by a
	// pre_tool_execution hook, gets: approval.ModeAsk ("" too) or
	// approval.ModeDeny, refused at once; NoHuman says why nobody can
	// answer in ModeDeny ("" says --approvals deny). ApprovedBy names who
	// answers approvals in this invocation, for the journal.
	Approve    *approval.Policy
	Approvals  string
	NoHuman    string
	ApprovedBy string
	// ApprovalTimeout, when positive, makes a call that needs approval
	// wait that long for interaction/response.txt instead of pausing the
	// run, and denies it when no answer comes.
	ApprovalTimeout time.Duration
	// NoEscalation: a call the sandbox refused is never offered to run
	// outside it (sandbox escalate: false; escalate.go).
	NoEscalation bool
	// MaxTurns caps the model turns (THOUGHTs) of the whole run, over all
	// invocations, and MaxToolRounds the tool rounds after one user input
	// (turnLimit); 0 means no cap.
	MaxTurns      int
	MaxToolRounds int
	// ContextWindow is the model's context size in tokens; 0 when unknown
	// (no usage warning is given).
	ContextWindow int64
	// ParentRunID is the run that spawned this one (subagents), recorded
	// in ENGINE_START; "" for a top-level run.
	ParentRunID string
	// Cost, when set, stops the run before a model call that would take
	// its cost past the limit (see CostLimit).
	Cost *CostLimit

	// answer is Message while resuming: the answer for an ask_human call
	// left without one. Taking it clears Message.
	answer string
}

// Start journals ENGINE_START and runs the loop until the run completes,
// fails, waits for input or is interrupted (ctx cancelled). The returned
// error is only for failures to write the run's own files; everything else
// is in the Outcome.
func (e *Engine) Start(ctx context.Context, config json.RawMessage) (Outcome, error) {
	e.setup()
	defer e.Run.Records.Wait() // every record is written when the run stops
	if e.Run.Events == nil {
		// The context builder reads the events the journal keeps instead
		// of parsing the whole file every iteration.
		e.Run.Events = e.Journal.Events
	}
	if err := e.append(&journal.Event{Type: journal.EngineStart, RunID: e.Run.RunID,
		AgentHome: e.Run.AgentHome, WorkDir: e.Run.WorkDir, Config: config, ParentRunID: e.ParentRunID}); err != nil {
		return Outcome{}, err
	}
	e.Log.Printf("engine start: run %s, agent %s, workspace %s", e.Run.RunID, e.Run.AgentHome, e.Run.WorkDir)
	out, err := e.loop(ctx)
	if err != nil {
		e.Log.Printf("engine error: %v", err)
		_ = e.Journal.Sync() // keep what can be kept; err says what failed
		return out, err
	}
	out, err = e.finish(out)
	if serr := e.Journal.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("sync journal at the end of the run: %w", serr)
	}
	return out, err
}

// loop is the body of Start.
func (e *Engine) loop(ctx context.Context) (Outcome, error) {
	events, err := e.Journal.Events()
	if err != nil {
		return Outcome{}, err
	}
	// A run stopped while ask_human waited (Ctrl-C during -i, a crash)
	// has no response.txt: the message given to this invocation is then
	// the answer to that question rather than a new user turn, so that
	// it is neither lost nor asked for a second time.
	e.answer = e.Message
	out, done, err := e.resume(ctx, events)
	e.answer = ""
	if err != nil || done {
		return out, err
	}
	if e.Message != "" {
		if err := e.append(&journal.Event{Type: journal.UserMessage, Content: e.Message}); err != nil {
			return Outcome{}, err
		}
	}
	limit := e.MaxIterations
	if limit <= 0 {
		limit = DefaultMaxIterations
	}
	for n := 0; ; n++ {
		events, err := e.Journal.Events()
		if err != nil {
			return Outcome{}, err
		}
		turn := CountThoughts(events)
		if ctx.Err() != nil {
			return e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted by signal"}), nil
		}
		if out, err := e.turnLimit(events, turn); err != nil || out != nil {
			if out == nil {
				return Outcome{}, err
			}
			return *out, err
		}
		if n >= limit {
			msg := fmt.Sprintf("maximum iterations reached (%d) without a final answer", limit)
			out, err := e.failDetails(ctx, turn, ErrTypeMaxIterations, errors.New(msg),
				"continue the run with -m to grant more iterations, or raise --max-iterations")
			if out == nil {
				return Outcome{}, err
			}
			return *out, err
		}
		if out, stop, err := e.overBudget(ctx, events, turn); stop {
			return out, err
		}
		e.Run.Iteration = turn + 1
		out, err := e.iterate(ctx, events)
		if err != nil || out != nil {
			if out == nil {
				return Outcome{}, err
			}
			return *out, err
		}
	}
}

// iterate runs one think-act-observe iteration. It returns a non-nil
// Outcome when the run stops.
func (e *Engine) iterate(ctx context.Context, events []journal.Event) (*Outcome, error) {
	it := e.Run.Iteration
	e.Log.Printf("iteration %d", it)
	if e.OnIteration != nil {
		e.OnIteration(it)
	}
	// Messages sent while the last tools ran reach this model call.
	if n, err := e.takeMessages(false); err != nil {
		return nil, err
	} else if n > 0 {
		if events, err = e.Journal.Events(); err != nil {
			return nil, err
		}
	}
	if err := e.detectLoop(events, it); err != nil {
		return nil, err
	}
	if _, err := e.hook(ctx, HookRequest{Name: "on_iteration_start"}); err != nil {
		return nil, err
	}
	resp, stopped, err := e.think(ctx, it, events)
	if err != nil || stopped != nil {
		return stopped, err
	}
	if len(resp.ToolCalls) == 0 {
		// The final iteration ends too (on_iteration_end sees every one).
		if _, err := e.hook(ctx, HookRequest{Name: "on_iteration_end"}); err != nil {
			return nil, err
		}
		// Follow-ups, and messages that came too late for this call,
		// start a new cycle instead of completing the run.
		if n, err := e.takeMessages(true); err != nil || n > 0 {
			return nil, err
		}
		out := e.outcome(runs.Completed, nil)
		out.ResultText = resp.Content
		out.Result = ParseResult(resp.Content)
		return &out, nil
	}
	if out, err := e.act(ctx, it, resp.ToolCalls, newCallState()); err != nil || out != nil {
		return out, err
	}
	if _, err := e.hook(ctx, HookRequest{Name: "on_iteration_end"}); err != nil {
		return nil, err
	}
	return nil, nil
}

// fail journals an ERROR, runs on_error and returns a FAILED outcome.
func (e *Engine) fail(ctx context.Context, it int, typ string, cause error) (*Outcome, error) {
	return e.failDetails(ctx, it, typ, cause, "")
}

// failDetails is fail with details for the user (what to do next), kept
// in the ERROR event's error_details and the outcome.
func (e *Engine) failDetails(ctx context.Context, it int, typ string, cause error, hint string) (*Outcome, error) {
	// A failure's text may quote what a generator or the endpoint said: it
	// is redacted once here for the journal, the on_error hook, metadata.json
	// and the result.
	cause = errors.New(e.Redact.String(cause.Error()))
	e.Log.Printf("iteration %d: %s: %v", it, typ, cause)
	doc := map[string]string{"type": typ}
	if hint != "" {
		doc["details"] = hint
	}
	details, _ := json.Marshal(doc)
	if err := e.append(&journal.Event{Type: journal.Error, Iteration: it, ErrorMessage: cause.Error(), ErrorDetails: details}); err != nil {
		return nil, err
	}
	payload, _ := json.Marshal(map[string]any{"error_type": typ, "error_message": cause.Error(), "iteration": it})
	if _, err := e.hook(ctx, HookRequest{Name: "on_error", Payload: payload, ErrorMessage: cause.Error()}); err != nil {
		return nil, err
	}
	out := e.outcome(runs.Failed, &RunError{Type: typ, Message: cause.Error(), Details: hint})
	return &out, nil
}

// finish runs on_run_end and journals ENGINE_END.
func (e *Engine) finish(out Outcome) (Outcome, error) {
	// The run's end is recorded even when ctx was cancelled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	payload, _ := json.Marshal(map[string]any{"status": out.Status, "error": out.Error, "result": out.Result})
	if _, err := e.hook(ctx, HookRequest{Name: "on_run_end", Payload: payload}); err != nil {
		return out, err
	}
	err := e.append(&journal.Event{Type: journal.EngineEnd, RunID: e.Run.RunID, Status: string(out.Status), FinalIteration: out.Iterations})
	e.Log.Printf("engine end: status %s after iteration %d", out.Status, out.Iterations)
	if err != nil {
		return out, err
	}
	events, err := e.Journal.Events()
	if err != nil {
		return out, err
	}
	out.Usage, out.ModelUsage = SumUsage(events)
	return out, nil
}

// outcome returns an Outcome with the run's current iteration.
func (e *Engine) outcome(status runs.Status, rerr *RunError) Outcome {
	it := e.Run.Iteration
	if events, err := e.Journal.Events(); err == nil {
		it = CountThoughts(events)
	}
	// A failure inside an iteration (the model call of iteration 1 gets a
	// 401) ends in that iteration, though it journaled no THOUGHT.
	if status == runs.Failed && rerr != nil && rerr.Type != ErrTypeMaxIterations {
		it = max(it, e.Run.Iteration)
	}
	return Outcome{Status: status, Error: rerr, Iterations: it}
}

// append journals ev and shows it to the observer. An event is durable
// before the engine acts on it: the events that come right before an
// action (a tool call or a question to the human runs after ACTION_REQUEST
// and HUMAN_INPUT_REQUEST; ENGINE_END ends the run) are synced at once;
// the others (THOUGHT, HOOK_EXECUTION, ACTION_RESULT, …) become durable
// with the next sync: before the model call that reads them, before the
// next tool runs, or when the run stops (Start). Two syncs per iteration
// at most, one per tool call beyond the first.
func (e *Engine) append(ev *journal.Event) error { return e.appendSync(ev, actedOnAtOnce(ev.Type)) }

// appendUnsynced journals ev without syncing: the caller syncs before it
// acts on it.
func (e *Engine) appendUnsynced(ev *journal.Event) error { return e.appendSync(ev, false) }

func (e *Engine) appendSync(ev *journal.Event, sync bool) error {
	if err := e.Journal.Append(ev); err != nil {
		return fmt.Errorf("append %s to journal: %w", ev.Type, err)
	}
	if sync {
		if err := e.Journal.Sync(); err != nil {
			return fmt.Errorf("sync %s to journal: %w", ev.Type, err)
		}
	}
	if e.Observe != nil {
		e.Observe(*ev)
	}
	return nil
}

// actedOnAtOnce reports whether the engine acts on an event of type t as
// soon as it is journaled, so that it must be synced before Append returns.
func actedOnAtOnce(t journal.Type) bool {
	switch t {
	case journal.ActionRequest, journal.HumanInputRequest, journal.EngineEnd:
		return true
	}
	return false
}

// toolSpecs is what the model is offered: the toolbox and ask_human.
func (e *Engine) toolSpecs() []llm.ToolSpec {
	var specs []llm.ToolSpec
	if e.Tools != nil {
		specs = append(specs, e.Tools.Specs()...)
	}
	return append(specs, tool.AskHumanSpec())
}

// CountThoughts is the number of model turns (iterations) already
// journaled.
func CountThoughts(events []journal.Event) int {
	n := 0
	for _, ev := range events {
		if ev.Type == journal.Thought {
			n++
		}
	}
	return n
}

// normalizeCalls gives every tool call an ID (some models omit them) so that
// ACTION_REQUEST/RESULT can always refer to their call.
func normalizeCalls(calls []llm.ToolCall, it int) []llm.ToolCall {
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("call_%d_%d", it, i+1)
		}
	}
	return calls
}

// SumUsage totals the token usage of the THOUGHT events, overall and per
// model.
func SumUsage(events []journal.Event) (llm.Usage, map[string]llm.Usage) {
	var total llm.Usage
	per := map[string]llm.Usage{}
	for _, ev := range events {
		if ev.Type != journal.Thought || ev.Usage == nil {
			continue
		}
		total = total.Add(*ev.Usage)
		per[ev.Model] = per[ev.Model].Add(*ev.Usage)
	}
	return total, per
}
