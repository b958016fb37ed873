package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/hooks"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
)

// driveOpts is what drive needs to run the engine over an existing run.
type driveOpts struct {
	// ctx is cancelled by the stop signals (stopContext).
	ctx       context.Context
	agent     *agent.Agent
	meta      *runs.Metadata
	runDir    string
	provider  llm.Provider
	llmConfig agent.LLMConfig // resolved: --llm and DELTA_MODEL applied
	// priorIterations are the iterations the run had before this
	// invocation (continue), so that the summary's duration and
	// iteration count describe the same span.
	priorIterations int
	// providerEnv is what the provider read (the environment and .env
	// files, as NAME=value): its secrets are redacted too.
	providerEnv []string
	message     string
	interactive bool
	verbose     bool
	format      string
	std         cli.Stdio
	approvals   approvalFlags
	// overrides are the run's per-run overrides (the agent was loaded
	// with them; the toolbox and context apply the rest).
	overrides runOverrides
	sandbox   sandboxFlags
	// rules are the sandbox the run's tools run under (sandboxRules),
	// nil for none.
	rules *sandbox.Rules
	// cluster: with --cluster the run is mirrored (mirrorProc).
	cluster mirroredFlags
	// frontEnd: a front-end such as delta chat runs the command
	// (--front-end): the model's text streams into the live stream on
	// stderr when it is not a terminal too, and pauses print no banner.
	frontEnd bool
}

// drive runs the engine on the run until it stops, keeps metadata.json
// current, and prints the result. The returned error carries the exit code.
func drive(o driveOpts) error {
	started := time.Now().UTC()
	show := o.liveStreams()
	defer show.wait.stop()
	logger, closeLog, err := openEngineLog(o.runDir)
	if err != nil {
		return err
	}
	defer closeLog()
	ctx, cancel := context.WithCancel(o.ctx)
	defer cancel()
	o.ctx = ctx
	mp, err := o.startMirror(cancel)
	if err != nil {
		return err
	}
	defer mp.close() // after the last metadata.json: the mirror stores it
	j, err := engine.OpenFileJournal(filepath.Join(o.runDir, runs.JournalFile))
	if err != nil {
		return err
	}
	defer j.Close()
	approve, err := approver(o.agent)
	if err != nil {
		return err
	}
	if o.rules, err = o.sandboxRules(); err != nil {
		return err
	}
	tools, err := runToolbox(o)
	if err != nil {
		return err
	}
	defer tools.Close()
	if past, err := j.Events(); err == nil {
		show.remember(past) // sensitive questions asked before a resume
		o.priorIterations = engine.CountThoughts(past)
	}
	e := newEngine(o, mp.journal(j), tools, show, logger)
	if err := o.answering(e, approve, show); err != nil {
		return err
	}
	out, runErr := e.Start(retryLogged(o.ctx, logger, show), runConfig(o))
	show.endLive() // the live view's last lines come before the result
	if stop := mp.stopped(); stop != nil {
		return stop.finish(o, out, started)
	}
	if gone := j.Check(); gone != nil {
		// Someone removed or replaced the run's files: nothing more is
		// written for it (no metadata.json in a directory recreated for it).
		return cli.WithCode(runs.ExitFailed, "the run's history is lost with its journal; start a new run",
			fmt.Errorf("run %s stopped: %w", o.meta.RunID, gone))
	}
	return o.finish(out, runErr, started)
}

// finish records the outcome in metadata.json, prints the result and maps
// the outcome to the command's exit. runErr is the engine's own failure
// (the run's files could not be written), recorded as a failed run.
func (o driveOpts) finish(out engine.Outcome, runErr error, started time.Time) error {
	if runErr != nil {
		out.Status = runs.Failed
		out.Error = &engine.RunError{Type: engine.ErrTypeEngine, Message: runErr.Error()}
	}
	ended := time.Now().UTC()
	recordOutcome(o.meta, out, o.llmConfig.Model, ended)
	if err := writeMetadata(o.runDir, o.meta); err != nil {
		return err
	}
	if err := printResult(o, out, started, ended); err != nil {
		return err
	}
	return exitFor(o, out)
}

// liveStreams wraps stderr (and stdout for stream-json) as live streams
// whose reader may leave, and returns the display of the run on stderr;
// on a terminal that display has a waiting indicator, which its caller
// stops.
func (o *driveOpts) liveStreams() *display {
	o.std.Err = &liveStream{w: o.std.Err}
	show := newDisplay(o.std.Err, o.verbose)
	show.streamText = show.tty || o.frontEnd
	show.frontEnd = o.frontEnd
	if show.tty {
		// Everything written to stderr (stream, prompts, plugin output)
		// erases the waiting indicator first.
		show.wait = startWaiting(o.std.Err, show.color)
		o.std.Err = show.wait
		show.w = show.wait
	}
	if o.format == "stream-json" || o.format == "claude-stream-json" {
		o.std.Out = &liveStream{w: o.std.Out} // a stream too: its reader may leave
	}
	return show
}

// openEngineLog opens the run's engine.log for appending.
func openEngineLog(runDir string) (*log.Logger, func() error, error) {
	f, err := os.OpenFile(filepath.Join(runDir, runs.EngineLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open engine.log: %w", err)
	}
	return log.New(f, "", log.LstdFlags|log.Lmicroseconds|log.LUTC), f.Close, nil
}

// newEngine wires the engine of the run: what it runs on, its limits and
// what it tells the display and engine.log. How questions and approvals
// are answered is set by answering.
func newEngine(o driveOpts, j engine.Journal, tools *runTools, show *display, logger *log.Logger) *engine.Engine {
	// The context (environment, project_docs) names the model the run
	// talks to: --llm and DELTA_MODEL applied, an alias resolved.
	runAgent := *o.agent
	runAgent.LLM = o.llmConfig
	cb := contextgen.New()
	cb.Stderr = o.std.Err
	e := &engine.Engine{
		Run: engine.RunInfo{RunID: o.meta.RunID, RunDir: o.runDir, JournalPath: filepath.Join(o.runDir, runs.JournalFile),
			AgentHome: o.agent.Home, WorkDir: o.meta.ToolDir(), Agent: &runAgent,
			ParentRunID: o.meta.ParentRunID, Depth: runDepth(o)},
		Journal: j, Provider: o.provider, Params: provider.ParamsOf(o.llmConfig), Context: withAppendedPrompt(cb, o.overrides.AppendSystemPrompt), Tools: tools.box,
		Hooks:       hooks.New(o.agent, hooks.Options{Stderr: o.std.Err, Plugin: tools.hook}),
		ParentRunID: o.meta.ParentRunID,
		// Secret values of the environment and of the provider's settings
		// (.env files) are redacted from what the run writes and sends.
		Redact: redact.FromEnv(os.Environ(), o.providerEnv),
	}
	o.limit(e)
	e.Log, e.Observe, e.OnText = logger, observer(o, show, offeredTools(tools), e.Redact), textSink(o, show)
	progress := &iterationUpdates{runDir: o.runDir, meta: o.meta}
	e.OnIteration = func(it int) {
		show.iteration(it)
		if err := progress.update(it); err != nil {
			logger.Printf("update metadata: %v", err)
		}
	}
	return e
}

// limit sets the engine's limits: iterations, turns, parallel calls, the
// loop detector's window and the context window usage is measured against.
func (o driveOpts) limit(e *engine.Engine) {
	e.MaxIterations, e.MaxTurns, e.MaxToolRounds = o.meta.MaxIterations, o.agent.MaxTurns, o.agent.MaxToolRoundsPerInput
	e.Parallel, e.LoopWindow = o.agent.ParallelTools, o.agent.LoopWindow
	e.ContextWindow = contextWindow(o.llmConfig)
	e.Cost = engine.CostLimitOf(o.llmConfig)
}

// answering sets how the run's questions are answered: the message of
// this invocation, ask_human on the terminal with -i, and the approval
// policy with its mode, answerer and timeout.
func (o driveOpts) answering(e *engine.Engine, approve *approval.Policy, show *display) error {
	e.Interactive, e.Message = o.interactive, o.message
	if o.interactive {
		e.Asker = &terminalAsker{in: o.std.In, out: o.std.Err, shown: show.showed}
	}
	e.Approve, e.ApprovedBy, e.ApprovalTimeout = approve, o.approvals.answerer(), o.approvals.Timeout
	e.NoEscalation = o.meta.Sandbox == nil || !o.meta.Sandbox.Escalates()
	var err error
	e.Approvals, err = o.approvals.mode()
	return err
}

// runConfig is the configuration ENGINE_START records.
func runConfig(o driveOpts) json.RawMessage {
	config := map[string]any{"agent_name": o.agent.Name, "model": o.llmConfig.Model,
		"provider": o.llmConfig.Provider, "max_iterations": o.meta.MaxIterations, "interactive": o.interactive,
		"sandbox": o.meta.Sandbox}
	if !o.overrides.empty() {
		config["overrides"] = o.overrides
	}
	data, _ := json.Marshal(config)
	return data
}

// retryLogged makes retried model requests logged, and shown with -v, so
// that a retry is not mistaken for a slow model.
func retryLogged(ctx context.Context, logger *log.Logger, show *display) context.Context {
	return provider.WithRetryNotify(ctx, func(ev provider.RetryEvent) {
		logger.Printf("model request attempt %d/%d failed: %v; retrying in %s", ev.Attempt, ev.Attempts, ev.Err, ev.Wait.Round(time.Millisecond))
		// The text of an answer that broke off is kept here, since no
		// THOUGHT will hold it.
		if se := (*provider.StreamError)(nil); errors.As(ev.Err, &se) && se.Partial.Content != "" {
			logger.Printf("partial answer of attempt %d: %q", ev.Attempt, se.Partial.Content)
		}
		show.retry(ev)
	})
}

// recordOutcome sets the run's metadata from the engine's outcome: status,
// iterations, usage, the error of a failed run and, once the run is
// finished (completed or failed), its end time.
func recordOutcome(m *runs.Metadata, out engine.Outcome, model string, ended time.Time) {
	m.Status = runs.Status(out.Status)
	m.Iterations = out.Iterations
	m.Usage, m.Model, m.ModelUsage = out.Usage, model, out.ModelUsage
	m.Error = nil
	if out.Error != nil && out.Status == runs.Failed {
		msg := out.Error.Message
		m.Error = &msg
	}
	m.EndTime = nil
	if out.Status == runs.Completed || out.Status == runs.Failed {
		m.EndTime = &ended
	}
}

// stopContext is cancelled by SIGINT, SIGTERM and SIGHUP (and makes a
// closed stderr pipe harmless). run and continue take it before they touch
// the run directory, so that a signal at any moment stops the run the
// orderly way (exit 130), never by the signal's default action.
func stopContext() (context.Context, func()) {
	stopSignals, release := catchSignals()
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	return ctx, func() { stop(); release() }
}

// interruptedBeforeStart is the error of a run stopped by a signal before
// it started (nothing was created, or what was is removed).
func interruptedBeforeStart() error {
	return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted", Err: errors.New("stopped before the run started")}
}

// exitFor maps the outcome to the command's exit code and message.
func exitFor(o driveOpts, out engine.Outcome) error {
	id, ws := o.meta.RunID, o.meta.WorkDir
	switch out.Status {
	case runs.Completed:
		return nil
	case runs.WaitingForInput:
		rel := filepath.Join(runs.ControlDir, id, runs.InteractionDir, runs.ResponseFile)
		if o.frontEnd {
			return &cli.Error{Code: runs.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for input", id)}
		}
		if q := out.Interaction; q != nil && runs.IsApproval(q.InputType) {
			approvalBanner(o.std.Err, q, id, ws, filepath.Join(ws, rel))
			return &cli.Error{Code: runs.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for an approval", id)}
		}
		fmt.Fprintf(o.std.Err, "Agent paused. Provide response in %s\nOr use: delta continue --run-id %s -w %s -m <response>\n",
			filepath.Join(ws, rel), id, ws)
		// Waiting is not an error: the guidance above is all the user needs.
		return &cli.Error{Code: runs.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for input", id)}
	case runs.Interrupted:
		if o.frontEnd { // the front-end goes on with the run itself
			return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted", Err: fmt.Errorf("run %s stopped", id)}
		}
		return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted",
			Err: fmt.Errorf("run %s stopped; resume with: delta continue --run-id %s -w %s", id, id, ws)}
	default:
		msg := "unknown error"
		switch {
		case out.Error != nil && out.Error.Type == engine.ErrTypeEngine:
			msg = out.Error.Type + ": " + out.Error.Message
		case out.Error != nil:
			// The live stream showed the journaled ERROR just above: the
			// message is not repeated.
			msg = out.Error.Type + " (the error is shown above)"
		}
		return cli.Errorf(runs.ExitFailed, fmt.Sprintf("see %s; retry with: delta continue --run-id %s -w %s -m \"…\"",
			filepath.Join(ws, runs.ControlDir, id, runs.JournalFile), id, ws), "run %s failed: %s", id, msg)
	}
}

// writeMetadata stamps updated_at and writes metadata.json atomically.
func writeMetadata(runDir string, m *runs.Metadata) error {
	m.UpdatedAt = time.Now().UTC()
	return runs.WriteMetadata(runDir, m)
}

// iterationUpdates throttles metadata.json's progress updates.
type iterationUpdates struct {
	runDir string
	meta   *runs.Metadata
	last   time.Time
}

// iterationEvery is how often, at most, metadata.json's iteration count is
// refreshed during a run: creating its temporary file costs about a
// millisecond, as much as the rest of a fast iteration, and the count is
// only progress for list-runs (the journal has the truth; the final write
// is always made).
const iterationEvery = 500 * time.Millisecond

// update records iteration it, when the last update is old enough.
func (u *iterationUpdates) update(it int) error {
	u.meta.Iterations = it
	if now := time.Now(); now.Sub(u.last) >= iterationEvery {
		u.last = now
		return updateIteration(u.runDir, u.meta)
	}
	return nil
}

// updateIteration records the iteration in metadata.json without the
// synced write writeMetadata does: a crash of delta-run keeps the written
// file (only a crash of the machine could lose it); status changes stay
// synced.
func updateIteration(runDir string, m *runs.Metadata) error {
	m.UpdatedAt = time.Now().UTC()
	return runs.WriteMetadataNoSync(runDir, m)
}

// contextWindow is llm.context_window, else the known window of the model,
// else 0 (unknown: no usage warning).
func contextWindow(cfg agent.LLMConfig) int64 {
	if cfg.ContextWindow != nil {
		return *cfg.ContextWindow
	}
	w, _ := llm.ContextWindowOf(cfg.Model)
	return w
}
