package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// CLI is delta-chat's grammar.
type CLI struct {
	cli.ManFlag

	AgentArg string `arg:"" optional:"" name:"AGENT" help:"Agent directory (same as --agent)." type:"path"`
	Agent    string `name:"agent" placeholder:"DIR" help:"Agent directory (default: the current directory; without an agent.yaml there, delta run's built-in coding agent, working in the current directory)." type:"path"`
	WorkDir  string `short:"w" name:"work-dir" placeholder:"DIR" help:"Workspace of the run (default: a new workspace W001, W002 … of the agent, as delta run makes; with --run-id, where the run is found)." type:"path"`
	RunID    string `name:"run-id" placeholder:"ID" help:"Resume this earlier run (a chat, or any run) instead of starting a new one with the first message."`
	LLM      string `name:"llm" placeholder:"PROVIDER[:ARG]" help:"Override the agent's provider for every turn, as delta run --llm does (openai:MODEL, anthropic:MODEL, scripted:FILE)."`
	Verbose  bool   `short:"v" help:"Show more detail in the live stream (thinking, hooks, token counts)."`

	// The per-run overrides of delta run, passed on to every turn.
	Model              string   `name:"model" placeholder:"NAME" help:"Use model NAME of the agent's provider, as delta run --model does."`
	Config             []string `short:"c" name:"config" sep:"none" placeholder:"KEY=VALUE" help:"Override an agent.yaml key (repeatable), as delta run -c does: -c max_iterations=50 -c llm.temperature=0.2."`
	AppendSystemPrompt string   `name:"append-system-prompt" placeholder:"TEXT" help:"Add TEXT to the system prompt, as delta run --append-system-prompt does."`
	AllowedTools       string   `name:"allowed-tools" placeholder:"LIST" help:"Offer the model only these tools (comma-separated names or globs), as delta run --allowed-tools does."`
	DisallowedTools    string   `name:"disallowed-tools" placeholder:"LIST" help:"Never offer these tools, as delta run --disallowed-tools does."`
	MCPConfig          []string `name:"mcp-config" sep:"none" type:"path" placeholder:"FILE" help:"Add the MCP servers of FILE (repeatable; Claude's mcpServers JSON, Codex's TOML or Delta's list), as delta run --mcp-config does."`
	Sandbox            string   `name:"sandbox" placeholder:"MODE" help:"What the tools may write and connect to (read-only, workspace-write or danger-full-access), as delta run --sandbox does; default $$DELTA_SANDBOX, else the run's recorded mode, else agent.yaml sandbox:."`
}

// overrideArgs are the per-run override flags to pass to delta-run.
func (c *CLI) overrideArgs() []string {
	var args []string
	for _, f := range []struct{ flag, value string }{{"--model", c.Model}, {"--append-system-prompt", c.AppendSystemPrompt},
		{"--allowed-tools", c.AllowedTools}, {"--disallowed-tools", c.DisallowedTools}, {"--sandbox", c.Sandbox}} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	for _, kv := range c.Config {
		args = append(args, "-c", kv)
	}
	for _, file := range c.MCPConfig {
		args = append(args, "--mcp-config", file)
	}
	return args
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-chat is an interactive conversation with an agent over one run: each line you type continues the run, and you see the agent think, call tools and answer as it happens. "delta chat" runs it.

The first message starts the run (delta run); each later one continues it (delta continue), so the whole conversation is one journal that delta log, delta fork and every other command can read, and --run-id resumes it later.

While the agent works, a line you type is sent to it as steering (delta send): the engine gives it to the model before its next step. Ctrl-C stops the current turn (the run becomes INTERRUPTED, as with delta stop) but not the chat; the next line goes on with the run. A steer the agent had not read yet when you pressed Ctrl-C is not lost, nor is the line you were still typing (it is kept as a steer and the chat says so): the agent gets them with your next message, after it. With no turn running, Ctrl-C discards the line being typed, as in a shell. Ctrl-D, or /quit, leaves.

When the agent asks a question (ask_human) or a tool call needs your approval, the chat asks you inline: answer the question, or answer an approval with y (or /approve), n, or a reason to deny it (or /deny REASON). Sensitive questions are read without echo.

Commands:
  /approve         approve the tool call waiting for approval
  /deny [REASON]   deny it, telling the model why
  /stop            stop the current turn (as Ctrl-C)
  /log             show the whole run (delta log)
  /status          the run's id, workspace and status
  /new             start a new run with the next message
  /quit            leave (Ctrl-D)
  /help            this list

On a terminal the line editor keeps a history (in $XDG_STATE_HOME/delta/chat_history, else ~/.local/state/delta/chat_history). Without a terminal, lines are read from standard input one at a time, each turn running to its end before the next line is read, so a chat can be scripted: each turn's final answer is printed on standard output, the live stream goes to standard error.

Exit codes: 0 when the chat ends normally (Ctrl-D, /quit or the end of the input); without a terminal, the last turn's exit code instead when it did not complete (1 failed, 101 waiting for input, 130 interrupted); 126 for an agent that does not load or a run that cannot be found; 2 for a usage error.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "talk with an agent, one run, turn by turn"
	return nil
}

// Run starts the conversation.
func (c *CLI) Run(std cli.Stdio) error {
	s, err := c.session()
	if err != nil {
		return err
	}
	return s.chat(std)
}

// session settles the agent, the run to resume and delta-run.
func (c *CLI) session() (*session, error) {
	if c.Agent != "" && c.AgentArg != "" && c.Agent != c.AgentArg {
		return nil, cli.Errorf(cli.ExitUsage, "", "give the agent once: --agent %s or %s", c.Agent, c.AgentArg)
	}
	bin, err := cli.FindCommand("delta-run")
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "install delta-run next to delta-chat (make install does) or on PATH", err)
	}
	s := &session{bin: bin, ws: c.WorkDir, runID: c.RunID, fixedWS: c.WorkDir != ""}
	if c.LLM != "" {
		s.extra = append(s.extra, "--llm", c.LLM)
	}
	if c.Verbose {
		s.extra = append(s.extra, "-v")
	}
	s.extra = append(s.extra, c.overrideArgs()...)
	dir := c.Agent
	if dir == "" {
		dir = c.AgentArg
	}
	if c.RunID != "" {
		if err := runs.ValidateID(c.RunID); err != nil {
			return nil, cli.WithCode(runs.ExitConfig, "", err)
		}
		ws, runDir, err := runs.Locate(c.WorkDir, c.RunID)
		if err != nil {
			hint := "see the runs with delta list-runs (with -w WORKSPACE)"
			if errors.Is(err, runs.ErrAmbiguousRun) {
				hint = "choose the workspace with -w"
			}
			return nil, cli.WithCode(runs.ExitConfig, hint, err)
		}
		m, err := runs.ReadMetadata(runDir)
		if err != nil {
			return nil, cli.WithCode(runs.ExitConfig, "", err)
		}
		s.ws, s.agentDir, s.name = ws, m.AgentHome, m.AgentName
		return s, nil
	}
	if dir == "" && !hasAgent(".") {
		return c.builtinSession(s)
	}
	if dir == "" {
		dir = "."
	}
	a, err := agent.Load(dir)
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "check it with: delta tool expand --check "+dir, err)
	}
	s.agentDir, s.name = a.Home, a.Name
	if s.ws != "" {
		if s.ws, err = runs.Canonical(s.ws); err != nil {
			return nil, err
		}
	}
	if s.agentDir, err = filepath.Abs(s.agentDir); err != nil {
		return nil, fmt.Errorf("agent directory: %w", err)
	}
	return s, nil
}

// hasAgent reports whether dir holds an agent (agent.yaml, or the legacy
// config.yaml).
func hasAgent(dir string) bool {
	for _, f := range []string{"agent.yaml", "config.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// builtinSession chats with delta run's built-in coding agent, as a run
// with no agent does: its workspace is -w, else the current directory, for
// every run of the chat (/new too).
func (c *CLI) builtinSession(s *session) (*session, error) {
	ws := c.WorkDir
	if ws == "" {
		ws = "."
	}
	var err error
	if s.ws, err = runs.Canonical(ws); err != nil {
		return nil, err
	}
	s.fixedWS, s.name = true, "the built-in coding agent"
	return s, nil
}
