package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// execFunc replaces the process (syscall.Exec); tests pass a fake.
type execFunc func(argv0 string, argv []string, envv []string) error

// usage is the --help text.
const usage = `usage: delta COMMAND [ARGS...]

Delta runs LLM agents whose whole state lives in files. delta is a thin front:
"delta NAME ARGS..." runs delta-NAME ARGS... (found next to delta, then on PATH).

Commands:
  run [AGENT] -m TASK       start a run                          (delta-run run)
  continue --run-id ID      resume a run                         (delta-run continue)
  list-runs                 list the runs of a workspace         (delta-run list-runs)
  ps                        every agent: runs, workflows, cluster (delta-run ps)
  stop --run-id ID | --all  stop running runs, as Ctrl-C does    (delta-run stop)
  log [--run-id ID|--last]  show a run as the live stream does   (delta-run log)
  send --run-id ID -m TEXT  give a running run a message         (delta-run send)
  fork --run-id ID --at SEQ start a new run from a journal prefix (delta-run fork)
  prune --older-than DUR    remove old finished runs             (delta-run prune)
  init NAME                 create an agent from a template      (delta-run init)
  chat [AGENT]              talk with an agent, turn by turn     (delta-chat)
  tool expand [AGENT]       show, check and preview tools        (delta-tool-expand)
  tool:expand [AGENT]       the same                             (delta-tool-expand)
  context                   build the LLM context of a run       (delta-context)
  sessions                  persistent command sessions          (delta-sessions)
  pty                       terminal sessions                    (delta-pty)
  mcp serve [--agent DIR]   serve an agent's tools over MCP      (delta-mcp)
  workflow run FILE         run a multi-agent workflow           (delta-workflow)
  plugin                    install, list, remove plugins        (delta-plugin)
  doctor                    check commands, key, endpoint, plugins (delta-doctor)
  sandbox exec --mode M -- CMD  run CMD under the tool sandbox   (delta-sandbox)
  otel export RUN...        send runs to OpenTelemetry as traces (delta-otel)
  cluster serve|init|status run and inspect a cluster (NATS)    (delta-cluster)
  worker --queue NAME       run a cluster queue's tasks here     (delta-cluster worker)
  batch submit|wait|results a batch of tasks over the workers    (delta-cluster batch)
  pull RUN                  copy a cluster run's directory here  (delta-cluster pull)
  completion SHELL          print completions for bash, zsh or fish
  NAME                      any delta-NAME on PATH

Options:
  -h, --help                this help ("delta help NAME" shows NAME's help)
  -V, --version             print the version

See delta(1), delta-agent(5) and each command's man page.
`

// runSubcommands are delta-run's subcommands, reachable as delta SUB.
var runSubcommands = map[string]bool{"run": true, "config": true, "continue": true, "list-runs": true, "ps": true, "init": true, "stop": true, "log": true, "send": true, "fork": true, "prune": true}

// clusterSubcommands are delta-cluster's subcommands, reachable as delta
// SUB as well as delta cluster SUB.
var clusterSubcommands = map[string]bool{"worker": true, "batch": true, "pull": true}

// run dispatches args; it returns only when it does not exec.
func run(args []string, std cli.Stdio, execve execFunc) int {
	stdout, stderr := std.Out, std.Err
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return cli.ExitUsage
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return runs.ExitCompleted
	case "--version", "-V":
		fmt.Fprintf(stdout, "delta %s\n", cli.Version())
		return runs.ExitCompleted
	case "--man":
		return cli.Run("delta", &manGrammar{}, []string{"--man"}, std)
	case "completion":
		return completion(args[1:], stdout, stderr)
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage)
			return runs.ExitCompleted
		}
		return dispatch(append(args[1:2:2], "--help"), stderr, execve)
	}
	return dispatch(args, stderr, execve)
}

// dispatch maps args to a binary and its arguments, and execs it.
func dispatch(args []string, stderr io.Writer, execve execFunc) int {
	name, rest := args[0], args[1:]
	switch {
	case runSubcommands[name]:
		name, rest = "run", args
	case clusterSubcommands[name]:
		name, rest = "cluster", args
	case name == "tool:expand":
		name = "tool-expand"
	case name == "tool":
		if len(rest) == 0 || rest[0] != "expand" {
			return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, "the tool command has one subcommand: delta tool expand [AGENT]", "unknown tool subcommand %q", strings.Join(rest[:min(1, len(rest))], "")))
		}
		name, rest = "tool-expand", rest[1:]
	case strings.HasPrefix(name, "-"):
		return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, "run delta --help for the commands", "unknown option %q", name))
	case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
		return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, "run delta --help for the commands", "unknown command %q", name))
	}
	bin := "delta-" + name
	path, dir, err := find(bin)
	if err != nil {
		return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, "run delta --help for the commands, or put a delta-"+name+" executable on PATH", "unknown command %q: no %s in %s or on PATH", args[0], bin, dir))
	}
	err = execve(path, append([]string{bin}, rest...), os.Environ())
	return cli.Report("delta", stderr, fmt.Errorf("run %s: %w", path, err))
}

// find looks for bin next to the running delta, then on PATH. dir is the
// directory of the running delta (for the error message).
func find(bin string) (path, dir string, err error) {
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		dir = filepath.Dir(self)
	}
	path, err = cli.FindCommand(bin)
	return path, dir, err
}
