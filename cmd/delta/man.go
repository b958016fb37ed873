package main

import (
	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/cli"
)

// manGrammar describes delta for its man page only: delta parses its own
// arguments by hand, because everything after the command name belongs to
// the command it runs.
type manGrammar struct {
	cli.ManFlag

	Run      passCmd `cmd:"" help:"Start a run: delta-run run ARGS."`
	Continue passCmd `cmd:"" help:"Resume a run: delta-run continue ARGS."`
	ListRuns passCmd `cmd:"" name:"list-runs" help:"List runs: delta-run list-runs ARGS."`
	Ps       passCmd `cmd:"" name:"ps" help:"Every agent in one table (runs, subagents, workflow agents, the cluster's runs): delta-run ps ARGS."`
	Stop     passCmd `cmd:"" help:"Stop running runs as Ctrl-C does: delta-run stop ARGS."`
	Log      passCmd `cmd:"" help:"Show a run's events as the live stream does, -f to follow: delta-run log ARGS."`
	Send     passCmd `cmd:"" help:"Give a running run a message (steering): delta-run send ARGS."`
	Fork     passCmd `cmd:"" help:"Start a new run from another's journal up to an iteration: delta-run fork ARGS."`
	Prune    passCmd `cmd:"" help:"Remove finished runs older than an age: delta-run prune ARGS."`
	Init     passCmd `cmd:"" help:"Create an agent from a template: delta-run init ARGS."`
	Chat     passCmd `cmd:"" help:"Talk with an agent over one run, turn by turn, with approvals and questions asked inline: delta-chat ARGS."`
	Tool     toolCmd `cmd:"" help:"Tool commands: delta tool expand ARGS runs delta-tool-expand ARGS (also spelled tool:expand)."`
	Context  passCmd `cmd:"" help:"Build the LLM context: delta-context ARGS."`
	Sessions passCmd `cmd:"" help:"Persistent command sessions: delta-sessions ARGS."`
	Pty      passCmd `cmd:"" help:"Terminal sessions: delta-pty ARGS."`
	MCP      passCmd `cmd:"" name:"mcp" help:"Serve an agent's tools over MCP: delta-mcp ARGS."`
	Workflow passCmd `cmd:"" help:"Multi-agent workflows, their channel, documents and proposals: delta-workflow ARGS."`
	Plugin   passCmd `cmd:"" help:"Install, list and remove plugins: delta-plugin ARGS."`
	Doctor   passCmd `cmd:"" help:"Check commands, key, endpoint and plugins: delta-doctor ARGS."`
	Sandbox  passCmd `cmd:"" help:"Run a command under the sandbox a model's tools get: delta-sandbox ARGS."`
	Otel     passCmd `cmd:"" help:"Send runs to an OpenTelemetry collector as GenAI traces (delta otel export RUN...): delta-otel ARGS."`
	Cluster  passCmd `cmd:"" help:"Run and inspect a cluster of machines on NATS JetStream (serve, init, status, …): delta-cluster ARGS."`
	Worker   passCmd `cmd:"" help:"Pull a cluster queue's tasks and run each as an ordinary run: delta-cluster worker ARGS."`
	Batch    passCmd `cmd:"" help:"Submit a batch of tasks to a cluster queue, wait for it, collect its results: delta-cluster batch ARGS."`
	Pull     passCmd `cmd:"" help:"Materialise a cluster run's directory on this host: delta-cluster pull ARGS."`
	Complete passCmd `cmd:"" name:"completion" help:"Print the completion script for SHELL (bash, zsh or fish): eval \"$(delta completion bash)\", source <(delta completion zsh), delta completion fish | source. Flags are completed from each command's --help."`
	HelpCmd  passCmd `cmd:"" name:"help" help:"Print this usage, or with NAME run delta-NAME --help."`
	Anything passCmd `cmd:"" name:"NAME" help:"Any other NAME runs delta-NAME ARGS, found next to delta or on PATH."`
}

// Help is the man page's DESCRIPTION.
func (manGrammar) Help() string {
	return `delta is the git-style front of the Delta toolkit. "delta NAME ARGS..." replaces itself (execve) with the binary delta-NAME and ARGS, so signals, standard input and output and the exit code are those of the command itself. delta-NAME is looked for first in the directory of the running delta binary, then on PATH.
run, continue, list-runs, ps, stop, log, send, fork, prune and init are subcommands of delta-run: "delta run -m TASK" runs "delta-run run -m TASK". "delta tool expand" and "delta tool:expand" run delta-tool-expand. worker, batch and pull are subcommands of delta-cluster: "delta worker --queue q" runs "delta-cluster worker --queue q", as "delta cluster worker --queue q" does.
Exit codes: those of the command run; 0 for --help and --version; 2 for no command, an unknown option, or a command with no delta-NAME next to delta or on PATH.`
}

type passCmd struct {
	Args []string `arg:"" optional:"" passthrough:"" help:"Arguments passed to the command unchanged."`
}

type toolCmd struct {
	Expand passCmd `cmd:"" help:"Run delta-tool-expand ARGS."`
}

// BeforeReset gives the man page its NAME line.
func (m *manGrammar) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "run Delta commands: delta NAME ARGS runs delta-NAME ARGS"
	return nil
}
