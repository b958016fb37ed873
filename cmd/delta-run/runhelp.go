package main

// Help is what "delta run --help" says below the usage line: the
// conventions a newcomer from Claude Code, Codex or llm looks for, in a
// few lines, with delta-run(1) holding the whole story. The leading
// newline puts it on a line of its own below the command in the man page.
func (*RunCmd) Help() string {
	return `
With no agent (no --agent, no AGENT, no agent.yaml here) it runs the built-in coding agent of the model's family in the current directory, reading AGENTS.md or CLAUDE.md: "DELTA_BASE_URL=http://localhost:11434/v1 DELTA_MODEL=qwen3 delta run -m 'fix the failing test'" needs nothing else. A pipe or file on stdin is appended to -m ("git diff | delta run -m review").

Per run: --model, -c KEY=VALUE, --append-system-prompt, --allowed-tools and --disallowed-tools, --mcp-config (Claude Desktop, Claude Code and Cursor mcpServers JSON, Codex TOML or Delta's list); continue reapplies them. Which setting wins: flags, then the environment (DELTA_MODEL, DELTA_BASE_URL, DELTA_APPROVALS …), then agent.yaml, then ${XDG_CONFIG_HOME:-~/.config}/delta/config.yaml, then built-in defaults; "delta config show" prints each with its origin.

Output: --format text, json, raw, stream-json, or Claude Code's claude-json and claude-stream-json; --input-format stream-json reads follow-up messages from stdin. "delta otel export RUN" sends the run to OpenTelemetry.

Exit codes: 0 completed, 1 failed, 2 usage error, 101 waiting for input, 126 configuration error, 130 interrupted. See delta-run(1).`
}
