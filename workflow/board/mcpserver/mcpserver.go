// Package mcpserver serves a workflow's agent tools over MCP (the Model
// Context Protocol), for agents that are other programs (claude, codex, an
// MCP-capable CLI): they reach the same channel, inbox, documents and
// proposals a Delta agent has as built-in tools, through the same one
// implementation (board.Tools).
//
// It is its own package so that only the command serving MCP links the
// MCP SDK; delta-run, which offers the tools directly, does not.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deltakit/delta/workflow/board"
)

// Name is the server's name in the MCP handshake (and the usual key of
// its entry in an MCP client's configuration).
const Name = "workflow-context"

// New returns an MCP server offering tools, every call made as identity:
// the one who started the server names the agent, never the client.
func New(tools *board.Tools, identity, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: version}, nil)
	for _, spec := range tools.Specs() {
		name := spec.Name
		s.AddTool(&mcp.Tool{Name: name, Description: spec.Description, InputSchema: json.RawMessage(spec.Parameters)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				text, err := tools.Call(ctx, identity, name, req.Params.Arguments)
				if err != nil {
					// A refusal or a failure of the context: the agent sees
					// it as the tool's error result, as the seed's tools
					// answer "Error: …", and can act on it.
					var te *board.ToolError
					if !errors.As(err, &te) {
						err = errors.New("workflow context: " + err.Error())
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Error: " + err.Error()}}, IsError: true}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
	}
	return s
}
