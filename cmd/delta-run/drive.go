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
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	pluginhost "github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/mcp"
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
	// frontEnd: a front-end such as delta chat runs the command
	// (--front-end): the model's text streams into the live stream on
	// stderr when it is not a terminal too, and pauses print no banner.
	frontEnd bool
}

// drive runs the engine on the run until it stops, keeps metadata.json
// current, and prints the result. The returned error carries the exit code.
func drive(o driveOpts) error {
	started := time.Now().UTC()
	ctx := o.ctx
	o.std.Err = &liveStream{w: o.std.Err}
	show := newDisplay(o.std.Err, o.verbose)
	show.streamText = show.tty || o.frontEnd
	if show.tty {
		// Everything written to stderr (stream, prompts, plugin output)
		// erases the waiting indicator first.
		show.wait = startWaiting(o.std.Err, show.color)
		defer show.wait.stop()
		o.std.Err = show.wait
		show.w = show.wait
	}
	if o.format == "stream-json" {
		o.std.Out = &liveStream{w: o.std.Out} // a stream too: its reader may leave
	}

	logFile, err := os.OpenFile(filepath.Join(o.runDir, engine.EngineLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open engine.log: %w", err)
	}
	defer logFile.Close()
	logger := log.New(logFile, "", log.LstdFlags|log.Lmicroseconds|log.LUTC)

	j, err := engine.OpenFileJournal(filepath.Join(o.runDir, engine.JournalFile))
	if err != nil {
		return err
	}
	defer j.Close()

	// The context (environment, project_docs) names the model the run
	// talks to: --llm and DELTA_MODEL applied, an alias resolved.
	runAgent := *o.agent
	runAgent.LLM = o.llmConfig
	run := engine.RunInfo{RunID: o.meta.RunID, RunDir: o.runDir, JournalPath: filepath.Join(o.runDir, engine.JournalFile),
		AgentHome: o.agent.Home, WorkDir: o.meta.ToolDir(), Agent: &runAgent}
	// Secret values of the environment and of the provider's settings
	// (.env files) are redacted from what the run writes and sends.
	redactor := redact.FromEnv(os.Environ(), o.providerEnv)
	approve, err := approver(o.agent)
	if err != nil {
		return err
	}
	tools := engine.Toolbox(engine.NewCommandTools(o.agent, os.Environ()))
	// Plugins (agent.yaml plugins:, hook plugins): one process each for the
	// run, stopped when it ends. Local tools win over plugin tools.
	plugins, err := pluginhost.New(o.agent.Plugins, pluginhost.Options{Stderr: o.std.Err, Verbose: o.verbose, Env: agent.FilterEnv(os.Environ(), o.agent.Env), ExecWrapper: o.agent.ExecWrapper})
	if err != nil {
		return cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
	}
	defer plugins.Close()
	if len(o.agent.Plugins) > 0 {
		ptools, err := plugins.Toolbox(ctx)
		if err != nil {
			return cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
		}
		tools = engine.Merge(tools, ptools)
	}
	// MCP servers (agent.yaml mcp_servers:): started at once, stopped when
	// the run ends; one that does not start is a configuration error.
	if len(o.agent.MCPServers) > 0 {
		mtools, err := mcp.Start(ctx, o.agent.MCPServers, mcp.AgentOptions(o.agent, os.Environ(), o.meta.ToolDir(), o.std.Err, o.verbose))
		if err != nil {
			return cli.WithCode(cli.ExitConfig, mcp.Hint, err)
		}
		defer mtools.Close()
		for _, w := range append(mtools.Warnings(), mtools.Shadow(tools)...) {
			fmt.Fprintln(o.std.Err, w)
		}
		tools = engine.Merge(tools, mtools)
	}
	if o.agent.Subagents.Enabled { // spawn_agent & co. (lib/subagent); local tools win
		sub, err := subagentTools(ctx, o, tools)
		if err != nil {
			return err
		}
		tools = engine.Merge(tools, sub)
	}
	// A workflow agent also has the workflow's tools (after its own).
	if wtools, err := workflowTools(o.runDir, o.meta); err != nil {
		return err
	} else if wtools != nil {
		tools = engine.Merge(tools, wtools)
	}
	defer tools.Close()
	if past, err := j.Events(); err == nil {
		show.remember(past) // sensitive questions asked before a resume
		o.priorIterations = engine.CountThoughts(past)
	}
	cb := contextgen.New()
	cb.Stderr = o.std.Err
	e := &engine.Engine{Run: run, Journal: j, Provider: o.provider, Context: cb,
		Hooks: hooks.New(o.agent, hooks.Options{Stderr: o.std.Err, Plugin: plugins.Hook}), Tools: tools, Params: provider.ParamsOf(o.llmConfig),
		MaxIterations: o.meta.MaxIterations, MaxTurns: o.agent.MaxTurns, Parallel: o.agent.ParallelTools, LoopWindow: o.agent.LoopWindow, ContextWindow: contextWindow(o.llmConfig), Interactive: o.interactive, Message: o.message,
		Observe: observer(o, show), Log: logger, Redact: redactor, ParentRunID: o.meta.ParentRunID}
	e.OnText = textSink(o, show)
	e.Cost = engine.CostLimitOf(o.llmConfig)
	e.Approve, e.ApprovedBy, e.ApprovalTimeout = approve, o.approvals.answerer(), o.approvals.Timeout
	if e.Approvals, err = o.approvals.mode(); err != nil {
		return err
	}
	if o.interactive {
		e.Asker = &terminalAsker{in: o.std.In, out: o.std.Err, shown: show.showed}
	}
	progress := &iterationUpdates{runDir: o.runDir, meta: o.meta}
	e.OnIteration = func(it int) {
		show.iteration(it)
		if err := progress.update(it); err != nil {
			logger.Printf("update metadata: %v", err)
		}
	}
	config, _ := json.Marshal(map[string]any{"agent_name": o.agent.Name, "model": o.llmConfig.Model,
		"provider": o.llmConfig.Provider, "max_iterations": o.meta.MaxIterations, "interactive": o.interactive})
	// Retried model requests are logged, and shown with -v, so that a
	// retry is not mistaken for a slow model.
	ctx = provider.WithRetryNotify(ctx, func(ev provider.RetryEvent) {
		logger.Printf("model request attempt %d/%d failed: %v; retrying in %s", ev.Attempt, ev.Attempts, ev.Err, ev.Wait.Round(time.Millisecond))
		show.retry(ev)
	})
	out, runErr := e.Start(ctx, config)
	if gone := j.Check(); gone != nil {
		// Someone removed or replaced the run's files: nothing more is
		// written for it (no metadata.json in a directory recreated for it).
		return cli.WithCode(cli.ExitFailed, "the run's history is lost with its journal; start a new run",
			fmt.Errorf("run %s stopped: %w", o.meta.RunID, gone))
	}
	if runErr != nil {
		// The run's own files could not be written: record what we can.
		out.Status = engine.StatusFailed
		out.Error = &engine.RunError{Type: engine.ErrTypeEngine, Message: runErr.Error()}
	}
	ended := time.Now().UTC()
	o.meta.Status = runs.Status(out.Status)
	o.meta.Iterations = out.Iterations
	o.meta.Usage, o.meta.Model, o.meta.ModelUsage = out.Usage, o.llmConfig.Model, out.ModelUsage
	o.meta.Error = nil
	if out.Error != nil && out.Status == engine.StatusFailed {
		msg := out.Error.Message
		o.meta.Error = &msg
	}
	o.meta.EndTime = nil
	if out.Status == engine.StatusCompleted || out.Status == engine.StatusFailed {
		o.meta.EndTime = &ended
	}
	if err := writeMetadata(o.runDir, o.meta); err != nil {
		return err
	}
	if err := printResult(o, out, started, ended); err != nil {
		return err
	}
	return exitFor(o, out)
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
	return &cli.Error{Code: cli.ExitInterrupted, Label: "interrupted", Err: errors.New("stopped before the run started")}
}

// exitFor maps the outcome to the command's exit code and message.
func exitFor(o driveOpts, out engine.Outcome) error {
	id, ws := o.meta.RunID, o.meta.WorkDir
	switch out.Status {
	case engine.StatusCompleted:
		return nil
	case engine.StatusWaiting:
		rel := filepath.Join(runs.ControlDir, id, engine.InteractionDir, engine.ResponseFile)
		if o.frontEnd {
			return &cli.Error{Code: cli.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for input", id)}
		}
		if q := out.Interaction; q != nil && q.InputType == engine.InputApproval {
			approvalBanner(o.std.Err, q, id, ws, filepath.Join(ws, rel))
			return &cli.Error{Code: cli.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for an approval", id)}
		}
		fmt.Fprintf(o.std.Err, "Agent paused. Provide response in %s\nOr use: delta continue --run-id %s -w %s -m <response>\n",
			filepath.Join(ws, rel), id, ws)
		// Waiting is not an error: the guidance above is all the user needs.
		return &cli.Error{Code: cli.ExitWaiting, Silent: true, Err: fmt.Errorf("run %s is waiting for input", id)}
	case engine.StatusInterrupted:
		return &cli.Error{Code: cli.ExitInterrupted, Label: "interrupted",
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
		return cli.Errorf(cli.ExitFailed, fmt.Sprintf("see %s; retry with: delta continue --run-id %s -w %s -m \"…\"",
			filepath.Join(ws, runs.ControlDir, id, engine.JournalFile), id, ws), "run %s failed: %s", id, msg)
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
