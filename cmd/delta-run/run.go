package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
)

// RunCmd starts a new run (seeds/000 §2.6.1).
type RunCmd struct {
	AgentArg      string  `arg:"" optional:"" name:"agent-dir" help:"Agent directory, as an alternative to --agent." type:"path"`
	Agent         string  `short:"a" help:"Agent directory (default: the current directory; without an agent.yaml there, the built-in coding agent for the model's family, working in the current directory)." type:"path"`
	Message       string  `short:"m" help:"Task description or user message (required: this, or --message-file); - reads it from stdin. When stdin is a pipe or a file (cat log | delta run -m summarize), its content is appended to the message after a blank line."`
	MessageFile   string  `name:"message-file" help:"Read the task from FILE." type:"path" placeholder:"FILE"`
	WorkDir       string  `short:"w" name:"work-dir" help:"Workspace directory (default: a new workspace W001, W002 … under the agent; on a terminal without -y you may pick one)." type:"path" placeholder:"DIR"`
	MaxIterations *int    `name:"max-iterations" help:"Maximum iterations of this invocation, at least 1 (default: agent.yaml max_iterations, else 30). Reaching it fails the run with error type max_iterations." placeholder:"N"`
	Verbose       bool    `short:"v" help:"Show more detail in the live stream (full thoughts and observations, hooks)."`
	Interactive   bool    `short:"i" help:"Answer ask_human on the terminal instead of pausing the run (exit 101)."`
	Yes           bool    `short:"y" help:"Never prompt: create a new workspace when -w is not given."`
	RunID         *string `name:"run-id" help:"Client-generated run ID ([A-Za-z0-9][A-Za-z0-9._-]{0,127}); must not exist in the workspace." placeholder:"ID"`
	InputFormat   string  `name:"input-format" help:"text, or stream-json: stdin carries Claude Code's user message lines, {\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":TEXT}}; the first is the task (unless -m gives it), and each later one continues the run once the previous turn has ended (a follow-up, the answer to a question or approval, or a new instruction after a failure) until stdin ends." enum:"text,stream-json" default:"text"`
	Format        string  `help:"Output on stdout: text (summary), json (RunResult v2.0), raw (the result alone), stream-json (an init line, a JSON line per journal event as it is written, tool_output lines with a running tool's output, the events of its subagents with their run_id and parent_run_id, then the RunResult), or Claude Code's headless formats: claude-json (its result object) and claude-stream-json (its NDJSON: system init, assistant, user and result lines)." enum:"text,json,raw,stream-json,claude-json,claude-stream-json" default:"text"`
	approvalFlags `embed:""`
	sandboxFlags  `embed:""`
	FrontEnd      bool   `name:"front-end" hidden:"" help:"Run under a front-end such as delta chat: the model's text streams into the live stream on stderr even when it is not a terminal, and a pause does not print how to answer it (the front-end asks)."`
	LLM           string `name:"llm" help:"Override the agent's provider and model: PROVIDER:MODEL or PROVIDER/MODEL with PROVIDER openai (OpenAI's Responses API), openai-compatible (Chat Completions at DELTA_BASE_URL: Ollama, vLLM, OpenRouter …), anthropic or gemini (openai/gpt-4o, anthropic:claude-sonnet-4-5, openai-compatible:llama3; a colon keeps a slash in the model: openai:meta-llama/llama-3), a provider alone (its model: $$DELTA_MODEL, else llm.model), an alias (sonnet, opus, haiku, gpt, codex, gemini-pro, flash), scripted:FILE to replay FILE offline, or replay:RUN to replay the model answers recorded in run RUN." placeholder:"PROVIDER[:ARG]"`
	subagentFlags `embed:""`
	overrideFlags `embed:""`
	mirroredFlags `embed:""`

	// MaxCost is --max-cost: the cost limit in US dollars (withMaxCost).
	MaxCost *float64 `name:"max-cost" help:"Stop the run gracefully before a model call that would take its cost past USD (US dollars; the whole run's cost, over every invocation, with the next call estimated at the last one's cost). The run then ends FAILED with error type max_cost (exit 1); continue it with a higher limit. Default: llm.max_cost_usd in agent.yaml, else no limit." placeholder:"USD"`
}

// Run starts the run (and, with --input-format stream-json, continues it
// with each further message of stdin).
func (c *RunCmd) Run(std cli.Stdio) error {
	if c.InputFormat == "stream-json" {
		return c.runStream(std)
	}
	return c.runOnce(std)
}

// runOnce starts the run and drives it until it stops.
func (c *RunCmd) runOnce(std cli.Stdio) error {
	ctx, stop := stopContext()
	defer stop()
	msg, err := readMessage(c.Message, c.MessageFile, std.In)
	if err != nil {
		return err
	}
	if msg, err = withPipedInput(msg, c.Message, c.Interactive, std.In, std.Err); err != nil {
		return err
	}
	if c.Message = msg; strings.TrimSpace(c.Message) == "" {
		return cli.Errorf(cli.ExitUsage, `give the task, e.g. -m "Create a greeting file" (or -m - to read it from stdin, or --message-file FILE)`, "-m/--message is empty or missing")
	}
	over, err := c.overrideFlags.over(runOverrides{}, false)
	if err != nil {
		return err
	}
	user, err := userConfig()
	if err != nil {
		return err
	}
	c.approvalFlags.userDefault = user.ApprovalsDefault()
	a, err := c.loadRunAgent(over, user, std)
	if err != nil {
		return err
	}
	runID, max, err := c.checkFlags(a)
	if err != nil {
		return err
	}
	workDir, err := c.workspace(a, std)
	if err != nil {
		return err
	}
	c.WorkDir = workDir // where a continue of an --input-format stream-json run finds it
	provider, llmConfig, providerEnv, err := newProviderEnv(a, c.LLM, over.Model, workDir)
	if err != nil {
		return err
	}
	if err := withMaxCost(&llmConfig, c.MaxCost); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interruptedBeforeStart()
	}
	meta, runDir, err := c.create(a, workDir, runID, maxIterations(max, a), llmConfig)
	if err != nil {
		return err
	}
	unlock, err := runs.Acquire(runDir)
	if err != nil {
		return err
	}
	defer unlock()
	err = drive(driveOpts{ctx: ctx, agent: a, meta: meta, runDir: runDir, provider: provider, llmConfig: llmConfig, providerEnv: providerEnv,
		overrides: over, message: c.Message, interactive: c.Interactive, verbose: c.Verbose, format: c.Format, std: std, approvals: c.approvalFlags, sandbox: c.sandboxFlags, frontEnd: c.FrontEnd, cluster: c.mirroredFlags})
	if err != nil && neverStarted(runDir) {
		// Refused before its first event (a plugin that does not start, a
		// journal that cannot be opened): nothing of it is worth keeping,
		// and its id can be used again.
		os.RemoveAll(runDir)
	}
	return err
}

// checkFlags checks --run-id and --max-iterations and returns them (an
// empty id and 0 when not given). A --run-id without -w must not be used
// by a run of the agent's workspaces already.
func (c *RunCmd) checkFlags(a *agent.Agent) (runID string, max int, err error) {
	// A given --run-id is validated even when empty ("$RUN_ID" unset):
	// a fresh id would lose the run its caller looks for later.
	if c.RunID != nil {
		runID = *c.RunID
		if err := runs.ValidateID(runID); err != nil {
			return "", 0, cli.WithCode(runs.ExitConfig, "", err)
		}
	}
	if c.MaxIterations != nil {
		if max = *c.MaxIterations; max < 1 {
			return "", 0, cli.Errorf(cli.ExitUsage, "omit --max-iterations for the agent's limit", "--max-iterations must be at least 1, not %d", max)
		}
	}
	if runID != "" && c.WorkDir == "" {
		if err := checkIDUnused(a.Home, runID); err != nil {
			return "", 0, err
		}
	}
	return runID, max, nil
}

// create creates the run (RUNNING, by this process) in the workspace,
// with the id given or a new one, and returns its metadata and directory.
func (c *RunCmd) create(a *agent.Agent, workDir, id string, max int, llmConfig agent.LLMConfig) (*runs.Metadata, string, error) {
	if id == "" {
		id = runs.NewID()
	}
	meta := &runs.Metadata{RunID: id, WorkspaceID: filepath.Base(workDir), AgentName: a.Name, Status: runs.Running,
		CreatedAt: time.Now().UTC(), InitialMessage: c.Message, MaxIterations: max,
		AgentHome: a.Home, WorkDir: workDir, LLM: overrideOf(c.LLM, llmConfig)}
	meta.SetProcess(runs.Self())
	if err := c.subagentFlags.apply(meta); err != nil {
		return nil, "", err
	}
	runDir, err := runs.Create(workDir, meta)
	if errors.Is(err, runs.ErrRunExists) {
		return nil, "", cli.WithCode(runs.ExitConfig, "choose another --run-id, or continue the existing run with: delta continue --run-id "+id+" -w "+workDir, err)
	}
	if err != nil {
		return nil, "", cli.WithCode(runs.ExitConfig, "", err)
	}
	return meta, runDir, nil
}

// neverStarted reports whether a run's journal is still empty.
func neverStarted(runDir string) bool {
	fi, err := os.Stat(filepath.Join(runDir, runs.JournalFile))
	return err == nil && fi.Size() == 0
}

// agentDir is --agent or the positional AGENT (delta run [AGENT] -m …),
// else the current directory (named false).
func (c *RunCmd) agentDir() (dir string, named bool, err error) {
	switch {
	case c.AgentArg != "" && c.Agent != "" && c.AgentArg != c.Agent:
		return "", false, cli.Errorf(cli.ExitUsage, "", "two agent directories: %s and --agent %s", c.AgentArg, c.Agent)
	case c.AgentArg != "":
		return c.AgentArg, true, nil
	case c.Agent != "":
		return c.Agent, true, nil
	}
	return ".", false, nil
}

// loadRunAgent loads the run's agent: the directory named, else the
// current directory's agent, else the built-in coding agent with the
// current directory as its workspace (unless -w names another).
func (c *RunCmd) loadRunAgent(over runOverrides, user *agent.UserConfig, std cli.Stdio) (*agent.Agent, error) {
	dir, named, err := c.agentDir()
	if err != nil {
		return nil, err
	}
	if wantsBuiltin(dir, named) {
		b, err := chooseBuiltin(c.LLM, user)
		if err != nil {
			return nil, err
		}
		if err := b.materialise(); err != nil {
			return nil, err
		}
		dir = b.home
		if c.WorkDir == "" {
			c.WorkDir = "."
		}
	}
	return loadAgentWith(dir, over, user, std)
}

// workspace resolves -w, or picks/creates a workspace under the agent.
func (c *RunCmd) workspace(a *agent.Agent, std cli.Stdio) (string, error) {
	if c.WorkDir != "" {
		if err := os.MkdirAll(c.WorkDir, 0o755); err != nil {
			return "", cli.WithCode(runs.ExitConfig, "", fmt.Errorf("create work directory: %w", err))
		}
		abs, err := filepath.Abs(c.WorkDir)
		if err != nil {
			return "", err
		}
		return filepath.EvalSymlinks(abs)
	}
	if !c.Yes && cli.IsTerminal(std.In) && cli.IsTerminal(std.Err) {
		if dir, ok, err := pickWorkspace(a.Home, std); err != nil || ok {
			return dir, err
		}
	}
	dir, err := runs.NextWorkspace(a.Home)
	if err != nil {
		return "", cli.WithCode(runs.ExitConfig, "", err)
	}
	return dir, nil
}

// maxIterations resolves the limit: flag, agent.yaml, default.
func maxIterations(flag int, a *agent.Agent) int {
	switch {
	case flag > 0:
		return flag
	case a.MaxIterations > 0:
		return a.MaxIterations
	}
	return engine.DefaultMaxIterations
}

// loadAgent loads the agent and prints its warnings; a load error is a
// configuration error (126) with the loader's hints.
func loadAgent(path string, std cli.Stdio) (*agent.Agent, error) {
	a, err := agent.Load(path)
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
	}
	printWarnings(a, std.Err)
	return a, nil
}
