package main

import (
	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-context's grammar.
type CLI struct {
	cli.ManFlag

	Show    ShowCmd    `cmd:"" default:"withargs" help:"Print the messages the model receives next (the default command)."`
	Fold    FoldCmd    `cmd:"" help:"Summarize a run's older iterations as Markdown: a ready memory-folding generator for context.yaml."`
	CheckJQ CheckJQCmd `cmd:"" name:"check-jq" hidden:"" help:"Compile an agent's jq generators (used by delta-tool-expand --check)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-context builds the LLM context of a run from its agent's context.yaml, with the very code delta-run uses, and prints it: the messages the model would receive next, as a JSON array (or as text for people), whole, per source, as a token estimate, or post-processed with jq.

Run selection: with --run-id the run's journal names its agent and workspace; without it the latest run in the workspace (-w, default the current directory), the one delta continue --last takes, is used; with --agent and no run, the context is built with an empty journal.

Generators of computed_file sources run exactly as the engine runs them (in the workspace, with DELTA_RUN_ID, DELTA_RUN_DIR, DELTA_AGENT_HOME, DELTA_CWD, JOURNAL_PATH and OUTPUT_PATH set), so their output files are rewritten.

Sources (man 5 delta-agent, CONTEXT): file and computed_file contents become system messages "# Context Block: ID" followed by the content; the journal source becomes the native conversation (user, assistant with tool calls, tool results), the last max_iterations iterations of it with every user message kept. An environment source tells the model its working directory, platform, OS, date, model and, in a git repository, the branch, a short status and the last commits; a project_docs source gathers AGENTS.md and the provider's own file (CLAUDE.md, GEMINI.md, .codex/instructions.md) from the git root down to the workspace, within 32 KB. A source's max_tokens cuts it to fit (4 characters per token) with a visible marker.

delta-context fold summarizes every iteration but the last N (--keep-last) as Markdown: tools used with counts, decisions (thought lines saying decided, chose, will…), files touched (tool arguments named path, file, filename…) and errors. It is a ready memory-folding generator: a computed_file source whose command is [delta-context, fold, --keep-last, "10", --output, "${CWD}/.delta/context_artifacts/summary.md"] with that output_path, followed by a journal source with max_iterations: 10 (see examples/memory-folding).

Examples: "delta-context -w WS --format text" to read the next context; "delta-context -w WS --tokens --format text" for its size per source; "delta-context -w WS --jq '.[-1].content'" for the last message.

Exit codes: 0 success; 1 a source failed (missing file, generator error or timeout, bad jq); 2 usage error; 126 the agent configuration is invalid.`
}

// BeforeReset gives the man page its NAME line (kong takes the one-line
// summary from the application's Help, which cli.Run leaves empty).
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "print the LLM context of a Delta run, and fold old iterations into a summary"
	return nil
}
