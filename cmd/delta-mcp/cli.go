package main

import (
	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-mcp's grammar.
type CLI struct {
	cli.ManFlag

	Serve ServeCmd `cmd:"" help:"Serve an agent's tools over MCP (stdio, or streamable HTTP with --http)."`
	Tools ToolsCmd `cmd:"" hidden:"" help:"Start the MCP servers whose agent.yaml entries are on stdin and list their tools as JSON (used by delta-tool-expand)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-mcp connects Delta to the Model Context Protocol (MCP), the way agent programs share tools. "delta mcp ARGS" runs it.

delta mcp serve offers an agent's tools — its command tools, the tools of its plugins and those of its own MCP servers — to any MCP client: Claude Code, Codex, an IDE, another Delta agent. A call runs exactly as in a delta run: exec: tools never go through a shell, shell: tools quote their values, every call has the tool's timeout and its process tree is killed when it ends or times out, the environment is filtered by the agent's env: policy (no API keys), a secret value of Delta's environment that a tool prints anyway is redacted, and long output is cut with a marker saying where the whole of it is. A call takes the same steps as a call of a run: the agent's pre_tool_execution hook (which may block it, modify its arguments or want a human), its approval: rules, the tool, redaction, and its post_tool_execution hook (the other lifecycle hooks belong to the loop of a run and do not run here). A call a rule or the hook wants a human for is asked of the client's user through MCP elicitation when the client supports it, and runs only when approved; when the client does not support elicitation, or with DELTA_APPROVALS=deny, it is denied with an error saying so. A tool that prints nothing returns empty text. Tools run in the workspace (-w, default the current directory), and every call is recorded there like a run's: the session is a run directory .delta/mcp-<id>/ with a journal of ACTION_REQUEST and ACTION_RESULT events and io/tool_executions records, so delta list-runs -w WORKSPACE and delta log show what a client did (a session is not an agent run: delta continue refuses it). The session is RUNNING while it serves, then COMPLETED (FAILED on an error); a session whose process was killed (kill -9, a crash) counts as INTERRUPTED, as a crashed run does: delta list-runs and delta prune mark it so in its metadata.json (never a live session, even when its pid has been reused), and delta prune removes it like any finished run.

By default it speaks MCP on stdin and stdout, as MCP clients start local servers: one JSON-RPC message a line; a line that is not one gets a JSON-RPC error (-32700 parse error, -32600 invalid request) and the server reads on. Started with stdin on a terminal, it says so on stderr. It announces Delta's version as its serverInfo.version. With --http ADDR it serves streamable HTTP at http://ADDR/mcp instead, printing that address on stdout; ADDR must be a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT; port 0 picks a free one) unless --allow-remote is given, since whoever reaches it runs the agent's tools.

Register it with an MCP client:
  Claude Code:  claude mcp add delta -- delta mcp serve --agent /path/to/agent -w /path/to/project
  Codex, in ~/.codex/config.toml (three lines):
    [mcp_servers.delta]
    command = "delta"
    args = ["mcp", "serve", "--agent", "/path/to/agent", "-w", "/path/to/project"]
  Any client with a JSON config (Claude Desktop, Cursor, VS Code): {"mcpServers": {"delta": {"command": "/usr/local/bin/delta", "args": ["mcp", "serve", "--agent", "/path/to/agent", "-w", "/path/to/project"]}}} (desktop apps do not see your shell's PATH: give delta's full path, as "command -v delta" prints it, and the workspace, since their current directory is not your project)
  Over HTTP: delta mcp serve --agent DIR --http 127.0.0.1:8765, then point the client at http://127.0.0.1:8765/mcp (claude mcp add --transport http delta http://127.0.0.1:8765/mcp).

The other direction — an agent using MCP servers' tools — is agent.yaml's mcp_servers: list (delta-agent(5), section MCP SERVERS); delta tool expand lists those tools.

Exit codes: 0 the client went away (stdio) or the server was stopped (SIGINT, SIGTERM); 1 failure; 2 usage error; 126 the agent does not load, or a plugin or MCP server of it does not start; 130 interrupted while an MCP server of the agent starts.`
}

// BeforeReset gives the man page its NAME line (kong takes the one-line
// summary from the application's Help, which cli.Run leaves empty).
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "serve a Delta agent's tools to MCP clients such as Claude Code or Codex"
	return nil
}
