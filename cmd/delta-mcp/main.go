// Command delta-mcp connects Delta to the Model Context Protocol (`delta
// mcp …` runs it): `serve` offers an agent's tools to MCP clients such as
// Claude Code or Codex, and the hidden `tools` lists the tools of an
// agent's MCP servers for delta-tool-expand.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-mcp", &CLI{}, os.Args[1:], cli.OSStdio())) }
