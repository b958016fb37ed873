package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/mcp"
)

// ToolsCmd is the hidden `delta-mcp tools`: delta-tool-expand runs it to
// list the tools of an agent's MCP servers, so that it need not link the
// MCP SDK. It reads the agent's mcp_servers entries as a JSON array on
// stdin, starts (or reaches) each server as a run would, in the current
// directory, and prints one JSON object on stdout: {"tools": [...]} with
// each tool's model-visible name, description, server and parameters or,
// when a server cannot be used, {"error": "...", "hint": "..."} with exit
// code 126.
type ToolsCmd struct{}

// toolsReply is what ToolsCmd prints.
type toolsReply struct {
	Tools []listedTool `json:"tools"`
	Error string       `json:"error,omitempty"`
	Hint  string       `json:"hint,omitempty"`
}

// listedTool is one MCP tool as the model sees it, with its server.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	MCPServer   string          `json:"mcp_server"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Run lists the tools of the servers named on stdin.
func (c *ToolsCmd) Run(std cli.Stdio) error {
	var servers []agent.MCPServer
	if err := json.NewDecoder(std.In).Decode(&servers); err != nil {
		return fmt.Errorf("read the mcp_servers entries (a JSON array) on stdin: %w", err)
	}
	reply := toolsReply{Tools: []listedTool{}}
	dir, _ := os.Getwd()
	tb, err := mcp.Start(context.Background(), servers, mcp.Options{Environ: os.Environ(), Dir: dir, Stderr: std.Err})
	if err != nil {
		reply = toolsReply{Error: err.Error(), Hint: mcp.Hint}
	} else {
		for _, w := range tb.Warnings() {
			fmt.Fprintln(std.Err, w)
		}
		for _, s := range tb.Specs() {
			reply.Tools = append(reply.Tools, listedTool{Name: s.Name, Description: s.Description, MCPServer: tb.Server(s.Name), Parameters: s.Parameters})
		}
		tb.Close()
	}
	enc := json.NewEncoder(std.Out)
	enc.SetEscapeHTML(false)
	if werr := enc.Encode(reply); werr != nil {
		return fmt.Errorf("write the tools: %w", werr)
	}
	if err != nil {
		return &cli.Error{Code: runs.ExitConfig, Err: err, Silent: true}
	}
	return nil
}
