package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// mcpLister is the program that starts an agent's MCP servers and lists
// their tools: delta-tool-expand does not link the MCP SDK itself.
const mcpLister = "delta-mcp"

// mcpReply is what `delta-mcp tools` prints.
type mcpReply struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		MCPServer   string          `json:"mcp_server"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Error string `json:"error"`
	Hint  string `json:"hint"`
}

// mcpTools has delta-mcp start the agent's MCP servers once, as a run
// would, and list their tools (SERVER__TOOL); a tool whose name the
// agent's own tools or its plugins' already have is left out, as in a
// run, and named in shadowed. The servers' stderr reaches stderr.
func mcpTools(a *agent.Agent, have []pluginTool, stderr io.Writer) ([]pluginTool, []string, error) {
	if len(a.MCPServers) == 0 {
		return nil, nil, nil
	}
	bin, err := cli.FindCommand(mcpLister)
	if err != nil {
		return nil, nil, cli.WithCode(runs.ExitConfig, "install delta-mcp next to delta-tool-expand (make install does) or on PATH",
			fmt.Errorf("the agent has mcp_servers and listing their tools needs %s: %w", mcpLister, err))
	}
	in, err := json.Marshal(a.MCPServers)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the mcp_servers entries: %w", err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "tools")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, stderr
	runErr := cmd.Run()
	var reply mcpReply
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
		if runErr == nil {
			runErr = err
		}
		return nil, nil, cli.WithCode(runs.ExitConfig, "", fmt.Errorf("list the MCP tools with %s tools: %w", bin, runErr))
	}
	if reply.Error != "" {
		return nil, nil, cli.WithCode(runs.ExitConfig, reply.Hint, errors.New(reply.Error))
	}
	if runErr != nil {
		return nil, nil, cli.WithCode(runs.ExitConfig, "", fmt.Errorf("list the MCP tools with %s tools: %w", bin, runErr))
	}
	taken := map[string]bool{}
	for _, t := range a.Tools {
		taken[t.Name] = true
	}
	for _, p := range have {
		taken[p.Name] = true
	}
	var tools []pluginTool
	var shadowed []string
	for _, s := range reply.Tools {
		if taken[s.Name] {
			shadowed = append(shadowed, fmt.Sprintf("%s (mcp server %s)", s.Name, s.MCPServer))
			continue
		}
		var params any
		_ = json.Unmarshal(s.Parameters, &params)
		tools = append(tools, pluginTool{Name: s.Name, Description: s.Description, MCPServer: s.MCPServer, Parameters: params, raw: s.Parameters})
	}
	return tools, shadowed, nil
}
