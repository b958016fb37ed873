// testserver serves package mcptest's tools over stdio, for the tests of
// Delta's MCP client. With an argument "crash" it exits at once instead;
// with "writer" it also serves mcptest's write tool, with "media" its
// picture and chime tools.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		fmt.Fprintln(os.Stderr, "testserver: cannot open the database")
		os.Exit(3)
	}
	server := mcptest.Server()
	if len(os.Args) > 1 && os.Args[1] == "writer" {
		server = mcptest.WriterServer()
	}
	if len(os.Args) > 1 && os.Args[1] == "media" {
		server = mcptest.MediaServer()
	}
	if err := server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
