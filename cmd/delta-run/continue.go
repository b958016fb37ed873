package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// ContinueCmd continues an existing run (seeds/000 §2.6.2).
type ContinueCmd struct {
	RunID         string     `name:"run-id" help:"The run to continue (see list-runs)." placeholder:"ID"`
	Last          bool       `help:"Continue the latest run of the workspace (the first list-runs shows, passing over delta mcp serve sessions) instead of naming it with --run-id."`
	Retry         bool       `help:"Go on with a FAILED run after fixing what failed (an endpoint, a key, a limit) without adding a message: the model is asked again where the run stopped."`
	MessageFile   string     `name:"message-file" help:"Read the message from FILE." type:"path" placeholder:"FILE"`
	WorkDir       string     `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Message       string     `short:"m" help:"Message: the answer when WAITING_FOR_INPUT (unless -i asks it on the terminal); required for COMPLETED, and for FAILED without --retry; optional for INTERRUPTED (the answer when the run stopped while ask_human waited). - reads it from stdin; a pipe or file on stdin is appended to -m TEXT as with run."`
	MaxIterations *int       `name:"max-iterations" help:"Maximum iterations of this invocation, at least 1 (default: the run's limit)." placeholder:"N"`
	Yes           bool       `short:"y" help:"Never prompt (accepted like run -y; continue asks nothing without -i)."`
	Verbose       bool       `short:"v" help:"Show more detail in the live stream."`
	Interactive   bool       `short:"i" help:"Answer ask_human on the terminal."`
	Force         bool       `help:"Let the janitor take over a RUNNING run started on another host."`
	Format        string     `help:"Output on stdout: text, json, raw, stream-json (an init line, a JSON line per journal event as it is written, tool_output lines with a running tool's output, the events of its subagents with their run_id and parent_run_id, then the RunResult), claude-json or claude-stream-json (Claude Code's headless formats)." enum:"text,json,raw,stream-json,claude-json,claude-stream-json" default:"text"`
	Approve       callChoice `help:"Approve the tool calls the run waits for: they run. With CALL_ID (repeatable) only that call." placeholder:"CALL_ID"`
	Deny          callChoice `help:"Deny the tool calls the run waits for; -m gives the model the reason. With CALL_ID (repeatable) only that call." placeholder:"CALL_ID"`
	approvalFlags `embed:""`
	overrideFlags `embed:""`
	sandboxFlags  `embed:""`
	mirroredFlags `embed:""`
	FrontEnd      bool   `name:"front-end" hidden:"" help:"Run under a front-end such as delta chat: the model's text streams into the live stream on stderr even when it is not a terminal, and a pause does not print how to answer it (the front-end asks)."`
	LLM           string `name:"llm" help:"Override the agent's provider and model: PROVIDER:MODEL or PROVIDER/MODEL with PROVIDER openai (OpenAI's Responses API), openai-compatible (Chat Completions at DELTA_BASE_URL: Ollama, vLLM, OpenRouter …), anthropic or gemini (openai/gpt-4o, anthropic:claude-sonnet-4-5, openai-compatible:llama3; a colon keeps a slash in the model: openai:meta-llama/llama-3), a provider alone (its model: $$DELTA_MODEL, else llm.model), an alias (sonnet, opus, haiku, gpt, codex, gemini-pro, flash), scripted:FILE to replay FILE offline, or replay:RUN to replay the model answers recorded in run RUN (default: the --llm the run was started or last continued with)." placeholder:"PROVIDER[:ARG]"`

	// MaxCost is --max-cost: the cost limit in US dollars (withMaxCost).
	MaxCost *float64 `name:"max-cost" help:"Stop the run gracefully before a model call that would take its cost past USD (the whole run's cost, earlier invocations included). Default: llm.max_cost_usd in agent.yaml, else no limit." placeholder:"USD"`
}

// Run continues the run.
func (c *ContinueCmd) Run(std cli.Stdio) error {
	ctx, stop := stopContext()
	defer stop()
	msg, err := readMessage(c.Message, c.MessageFile, std.In)
	if err != nil {
		return err
	}
	if msg, err = withPipedInput(msg, c.Message, c.Interactive, std.In, std.Err); err != nil {
		return err
	}
	c.Message = msg
	runDir, err := c.locate()
	if err != nil {
		return err
	}
	unlock, err := runs.Acquire(runDir)
	if errors.Is(err, runs.ErrRunBusy) {
		return busy(runDir, c.RunID)
	}
	if err != nil {
		return err
	}
	defer unlock()
	meta, err := c.prepare(runDir, std.Err)
	if err != nil {
		return err
	}
	// The run keeps the overrides it was started or last continued with,
	// except those this invocation gives again.
	over, err := c.overrideFlags.over(recordedOverrides(runDir), c.LLM != "")
	if err != nil {
		return err
	}
	user, err := userConfig()
	if err != nil {
		return err
	}
	c.approvalFlags.userDefault = user.ApprovalsDefault()
	a, err := loadAgentWith(meta.AgentHome, over, user, std)
	if err != nil {
		return err
	}
	// The run keeps the --llm it was started with unless this invocation
	// names another.
	override := c.LLM
	if override == "" {
		override = meta.LLM
	}
	provider, llmConfig, providerEnv, err := newProviderEnv(a, override, over.Model, c.WorkDir)
	if err != nil {
		return err
	}
	if err := withMaxCost(&llmConfig, c.MaxCost); err != nil {
		return err
	}
	meta.LLM = overrideOf(override, llmConfig)
	return c.resume(driveOpts{ctx: ctx, agent: a, meta: meta, runDir: runDir, provider: provider, llmConfig: llmConfig, providerEnv: providerEnv,
		overrides: over, interactive: c.Interactive, verbose: c.Verbose, format: c.Format, std: std, approvals: c.approvalFlags, sandbox: c.sandboxFlags, frontEnd: c.FrontEnd, cluster: c.mirroredFlags})
}

// locate finds the run to continue (--run-id or --last, in -w or the
// agent's workspaces) after checking the flags, sets c.WorkDir to the
// workspace it was found in (hints name it) and returns its directory.
func (c *ContinueCmd) locate() (string, error) {
	var err error
	// --last passes over delta mcp serve sessions: they are not runs.
	if c.RunID, c.WorkDir, err = pickRunWhere((*runs.Metadata).Resumable, c.RunID, c.Last, c.WorkDir); err != nil {
		return "", err
	}
	if err := runs.ValidateID(c.RunID); err != nil {
		return "", cli.WithCode(runs.ExitConfig, "", err)
	}
	if c.MaxIterations != nil && *c.MaxIterations < 1 {
		return "", cli.Errorf(cli.ExitUsage, "omit --max-iterations for the run's limit", "--max-iterations must be at least 1, not %d", *c.MaxIterations)
	}
	workDir, runDir, err := runs.Locate(c.WorkDir, c.RunID)
	switch {
	case errors.Is(err, runs.ErrNoRun):
		return "", cli.WithCode(runs.ExitFailed, "Use `delta run` to start a new run, or `delta list-runs` (with -w WORKSPACE) to see the runs", err)
	case errors.Is(err, runs.ErrAmbiguousRun):
		return "", cli.WithCode(runs.ExitConfig, "", err)
	case err != nil:
		return "", err
	}
	c.WorkDir = workDir
	return runDir, nil
}

// prepare readies the locked run for this invocation and returns its
// metadata: a run of delta-engine is converted, the state table is applied
// (checkState), a torn journal line is cut off, and the agent directory
// must still exist.
func (c *ContinueCmd) prepare(runDir string, stderr io.Writer) (*runs.Metadata, error) {
	if imported, err := runs.ImportDeltaEngine(runDir, c.WorkDir); err != nil {
		return nil, err
	} else if imported {
		fmt.Fprintf(stderr, "delta-run: converted run %s, written by delta-engine, to Delta's files; the originals are kept with the suffix %s\n", c.RunID, runs.DeltaEngineSuffix)
	}
	meta, err := runs.ReadMetadata(runDir) // read under the lock
	if err != nil {
		return nil, err
	}
	if err := c.checkState(runDir, meta, stderr); err != nil {
		return nil, err
	}
	if repaired, err := journal.Repair(filepath.Join(runDir, runs.JournalFile)); err != nil {
		return nil, err
	} else if repaired != "" {
		fmt.Fprintf(stderr, "delta-run: warning: the journal's last line was torn (a crash mid-write); cut it off, its bytes are kept in %s\n", repaired)
	}
	if _, err := os.Stat(meta.AgentHome); errors.Is(err, os.ErrNotExist) {
		return nil, cli.Errorf(runs.ExitConfig, fmt.Sprintf("move the agent directory back, or set agent_home in %s to where it is now",
			filepath.Join(runDir, runs.MetadataFile)), "the run's agent directory %s (agent_home in metadata.json) no longer exists", meta.AgentHome)
	}
	return meta, nil
}

// resume marks the run RUNNING by this process and drives it with the
// message of this invocation. A run refused before the engine journaled
// anything (a plugin or MCP server that does not start) stays as it was,
// not RUNNING with no process.
func (c *ContinueCmd) resume(o driveOpts) error {
	meta, runDir := o.meta, o.runDir
	o.message = c.Message
	if meta.Status == runs.WaitingForInput {
		o.message = "" // the answer travels through response.txt
	}
	if neverStarted(runDir) {
		// Stopped between its creation and its first event: the task was
		// never journaled, so this invocation starts it.
		o.message = joinMessages(meta.InitialMessage, o.message)
	}
	if c.MaxIterations != nil {
		meta.MaxIterations = *c.MaxIterations
	} else if meta.MaxIterations <= 0 {
		meta.MaxIterations = maxIterations(0, o.agent)
	}
	before, journaled := *meta, journalSize(runDir)
	meta.Status = runs.Running
	meta.EndTime = nil
	meta.Error = nil
	meta.SetProcess(runs.Self())
	if err := writeMetadata(runDir, meta); err != nil {
		return err
	}
	err := drive(o)
	if err != nil && journalSize(runDir) == journaled {
		if werr := writeMetadata(runDir, &before); werr != nil {
			fmt.Fprintf(o.std.Err, "delta-run: warning: could not restore the run's status: %v\n", werr)
		}
	}
	return err
}

// journalSize is the size of a run's journal (-1 when it cannot be read).
func journalSize(runDir string) int64 {
	fi, err := os.Stat(filepath.Join(runDir, runs.JournalFile))
	if err != nil {
		return -1
	}
	return fi.Size()
}

// joinMessages joins the non-empty messages with a blank line.
func joinMessages(msgs ...string) string {
	var out []string
	for _, m := range msgs {
		if strings.TrimSpace(m) != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, "\n\n")
}

// checkState applies the five-state table: janitor for RUNNING, message
// rules for the others. For WAITING_FOR_INPUT, -m becomes response.txt.
func (c *ContinueCmd) checkState(runDir string, meta *runs.Metadata, stderr io.Writer) error {
	if !meta.Resumable() {
		return cli.Errorf(runs.ExitConfig, "delta log --run-id "+c.RunID+" -w "+c.WorkDir+" shows the calls; start a run of the agent with delta run",
			"%s is a delta mcp serve session (the tool calls of an MCP client), not an agent run: it cannot be continued", c.RunID)
	}
	if (c.Approve.set() || c.Deny.set()) && meta.Status != runs.WaitingForInput {
		return cli.Errorf(runs.ExitConfig, "", "run %s is %s: --approve and --deny answer a run waiting for an approval", c.RunID, meta.Status)
	}
	example := fmt.Sprintf("Example: delta continue --run-id %s -w %s -m \"Now do something else\"", c.RunID, c.WorkDir)
	switch meta.Status {
	case runs.Running:
		return c.takeOver(runDir, meta, stderr)
	case runs.Interrupted:
	case runs.WaitingForInput:
		return c.answer(runDir, stderr)
	case runs.Failed:
		if c.Message == "" && !c.Retry {
			return cli.Errorf(runs.ExitConfig, example+" (or --retry instead of -m, to ask the model again where the run stopped)",
				"run is FAILED; to continue, provide a message using -m/--message, or retry it with --retry")
		}
	case runs.Completed:
		if c.Retry {
			return cli.Errorf(runs.ExitConfig, example, "run is COMPLETED: there is nothing to retry; to continue, provide a message using -m/--message")
		}
		if c.Message == "" {
			return cli.Errorf(runs.ExitConfig, example, "run is %s; to continue, provide a message using -m/--message", meta.Status)
		}
	default:
		return cli.Errorf(runs.ExitConfig, "", "run has unknown status %q in metadata.json", meta.Status)
	}
	return nil
}

// takeOver lets the janitor take over a RUNNING run whose process is gone
// (or, with --force, runs on another host) and says so.
func (c *ContinueCmd) takeOver(runDir string, meta *runs.Metadata, stderr io.Writer) error {
	if err := runs.Janitor(meta, c.Force); err != nil {
		var re *runs.RunError
		if errors.As(err, &re) {
			return cli.WithCode(runs.ExitFailed, re.Hint, err)
		}
		return err
	}
	if err := writeMetadata(runDir, meta); err != nil {
		return err
	}
	if host, _ := os.Hostname(); meta.Hostname != "" && meta.Hostname != host {
		fmt.Fprintf(stderr, "[Janitor] Took over run started on host %s (--force): its process %d is assumed dead\n", meta.Hostname, meta.PID)
	} else {
		fmt.Fprintf(stderr, "[Janitor] Cleaned up orphaned run: process %d no longer exists\n", meta.PID)
	}
	return nil
}

// answer writes the answer of a WAITING_FOR_INPUT run to response.txt:
// --approve or --deny for calls waiting for an approval, else -m. Without
// one, an answer must already be there, or -i asks it on the terminal.
func (c *ContinueCmd) answer(runDir string, stderr io.Writer) error {
	resp := filepath.Join(runDir, runs.InteractionDir, runs.ResponseFile)
	waiting := pendingCalls(runDir)
	approval := len(waiting) > 0
	answer, err := c.approvalAnswer(waiting, runDir)
	if err != nil {
		return err
	}
	if answer == "" && c.Message != "" && approval {
		return cli.Errorf(runs.ExitConfig, fmt.Sprintf("delta continue --run-id %s -w %s --approve (or --deny -m REASON)", c.RunID, c.WorkDir),
			"run %s waits for an approval, not a message", c.RunID)
	}
	if answer == "" {
		answer = c.Message
	}
	if answer != "" {
		return c.writeAnswer(resp, answer, stderr)
	}
	if _, err := os.Stat(resp); err == nil || c.Interactive {
		return nil
	}
	if approval {
		return cli.Errorf(runs.ExitConfig, fmt.Sprintf("delta continue --run-id %s -w %s --approve (or --deny -m REASON, or write approved / denied: REASON to %s first)", c.RunID, c.WorkDir, resp),
			"run is WAITING_FOR_INPUT for an approval; answer with --approve or --deny")
	}
	return cli.Errorf(runs.ExitConfig, fmt.Sprintf("Example: delta continue --run-id %s -w %s -m \"yes, proceed\" (or write %s first)", c.RunID, c.WorkDir, resp),
		"run is WAITING_FOR_INPUT; provide the answer using -m/--message")
}

// writeAnswer writes answer to response.txt, replacing (with a warning)
// an answer already there.
func (c *ContinueCmd) writeAnswer(resp, answer string, stderr io.Writer) error {
	if _, err := os.Stat(resp); err == nil {
		by := "-m"
		if c.Approve.set() || c.Deny.set() {
			by = "this answer"
		}
		fmt.Fprintf(stderr, "delta-run: warning: %s already held an answer; %s replaces it\n", resp, by)
	}
	if err := os.MkdirAll(filepath.Dir(resp), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(resp, []byte(answer+"\n"), 0o600); err != nil {
		return fmt.Errorf("write interaction response: %w", err)
	}
	return nil
}

// busy is the refusal to continue a run another process drives: it names
// the run and, from its metadata, the process to interrupt.
func busy(runDir, id string) error {
	hint := "wait for it to finish or interrupt it first"
	if m, err := runs.ReadMetadata(runDir); err == nil && m.PID > 0 {
		hint = fmt.Sprintf("wait for it to finish or interrupt it first (kill -INT %d on %s)", m.PID, m.Hostname)
		return cli.Errorf(runs.ExitFailed, hint, "run %s is currently executing (PID %d)", id, m.PID)
	}
	return cli.Errorf(runs.ExitFailed, hint, "run %s is currently executing", id)
}
