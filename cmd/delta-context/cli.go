package main

import "github.com/deltakit/delta/lib/cli"

// CLI is delta-context's grammar.
type CLI struct {
	cli.ManFlag

	Show ShowCmd `cmd:"" default:"withargs" help:"Print the messages the model receives next (the default command)."`
	Fold FoldCmd `cmd:"" help:"Summarize a run's older iterations as Markdown: a ready memory-folding generator for context.yaml."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-context builds the LLM context of a run from its agent's context.yaml, with the very code delta-run uses, and prints it: the messages the model would receive next, as a JSON array (or as text for people), whole, per source, as a token estimate, or post-processed with jq.

Run selection: with --run-id the run's journal names its agent and workspace; without it the most recent run in the workspace (-w, default the current directory) is used; with --agent and no run, the context is built with an empty journal.

Generators of computed_file sources run exactly as the engine runs them (in the workspace, with DELTA_RUN_ID, DELTA_AGENT_HOME, DELTA_CWD and JOURNAL_PATH set), so their output files are rewritten.

Exit codes: 0 success; 1 a source failed (missing file, generator error or timeout, bad jq); 2 usage error; 126 the agent configuration is invalid.`
}
