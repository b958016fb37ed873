package main

import (
	"io"
	"os"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-run's grammar. run is the default command, so
// `delta-run -m "task"` starts a run.
type CLI struct {
	cli.ManFlag

	Run      RunCmd      `cmd:"" default:"withargs" help:"Start a new run of an agent (the default command)."`
	Continue ContinueCmd `cmd:"" help:"Continue an existing run: resume, answer ask_human, extend or retry it."`
	ListRuns ListRunsCmd `cmd:"" name:"list-runs" help:"List the runs of a workspace."`
	Init     InitCmd     `cmd:"" help:"Create a new agent directory from a template."`
}

// stdio are the streams a command uses; tests and main share os's.
type stdio struct {
	in       *os.File
	out, err io.Writer
}

func osStdio() stdio { return stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr} }

// Exit codes (seeds/000 §2.6.5), documented in the man page.
const exitCodesHelp = `Exit status: 0 the run COMPLETED; 1 it FAILED (including reaching --max-iterations); ` +
	`101 it is WAITING_FOR_INPUT (ask_human without -i); 126 configuration error (agent, flags, duplicate run id); ` +
	`130 INTERRUPTED (SIGINT or SIGTERM); 2 bad command line.`
