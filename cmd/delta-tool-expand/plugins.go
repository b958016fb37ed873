package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// pluginTool is a plugin's tool in the expanded listing: it has no argv,
// the plugin named by Plugin serves it (or the MCP server named by
// MCPServer: MCP tools are listed the same way).
type pluginTool struct {
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	Plugin      string `json:"plugin,omitempty" yaml:"plugin,omitempty"`
	MCPServer   string `json:"mcp_server,omitempty" yaml:"mcp_server,omitempty"`
	Parameters  any    `json:"parameters" yaml:"parameters"`
	raw         json.RawMessage
}

// pluginLister is the program that starts plugins and lists their tools:
// delta-tool-expand does not link the plugin machinery (gRPC) itself, which
// keeps it small and quick to start for the agents without plugins.
const pluginLister = "delta-plugin"

// toolsReply is what `delta-plugin tools` prints.
type toolsReply struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Plugin      string          `json:"plugin"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Error string `json:"error"`
	Hint  string `json:"hint"`
}

// pluginTools has delta-plugin start the agent's plugins once (checksums
// verified, as delta-run does) and list the tools they add; a local tool of
// the same name wins, as in a run. Plugins' stderr reaches stderr.
func pluginTools(a *agent.Agent, stderr io.Writer) ([]pluginTool, error) {
	tools, _, err := pluginToolsShadowed(a, stderr)
	return tools, err
}

// pluginToolsShadowed is pluginTools that also names the plugin tools a
// local tool of the same name hides, as "TOOL (plugin NAME)".
func pluginToolsShadowed(a *agent.Agent, stderr io.Writer) ([]pluginTool, []string, error) {
	if len(a.Plugins) == 0 {
		return nil, nil, nil
	}
	reply, err := listPluginTools(a.Plugins, stderr)
	if err != nil {
		return nil, nil, err
	}
	var out []pluginTool
	var shadowed []string
	for _, s := range reply.Tools {
		if slices.ContainsFunc(a.Tools, func(t tool.Tool) bool { return t.Name == s.Name }) {
			shadowed = append(shadowed, fmt.Sprintf("%s (plugin %s)", s.Name, s.Plugin))
			continue
		}
		var params any
		_ = json.Unmarshal(s.Parameters, &params)
		out = append(out, pluginTool{Name: s.Name, Description: s.Description, Plugin: s.Plugin, Parameters: params, raw: s.Parameters})
	}
	return out, shadowed, nil
}

// listPluginTools runs `delta-plugin tools` with the plugins entries on
// stdin and decodes its reply.
func listPluginTools(refs []agent.PluginRef, stderr io.Writer) (toolsReply, error) {
	var reply toolsReply
	bin, err := findLister()
	if err != nil {
		return reply, cli.WithCode(runs.ExitConfig, "install delta-plugin next to delta-tool-expand (make install does) or on PATH", err)
	}
	in, err := json.Marshal(refs)
	if err != nil {
		return reply, fmt.Errorf("encode the plugins entries: %w", err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "tools")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, stderr
	runErr := cmd.Run()
	if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
		if runErr == nil {
			runErr = err
		}
		return reply, cli.WithCode(runs.ExitConfig, "", fmt.Errorf("list the plugin tools with %s tools: %w", bin, runErr))
	}
	if reply.Error != "" {
		return reply, cli.WithCode(runs.ExitConfig, reply.Hint, errors.New(reply.Error))
	}
	if runErr != nil {
		return reply, cli.WithCode(runs.ExitConfig, "", fmt.Errorf("list the plugin tools with %s tools: %w", bin, runErr))
	}
	return reply, nil
}

// findLister looks for delta-plugin next to the running executable, then
// on PATH.
func findLister() (string, error) {
	p, err := cli.FindCommand(pluginLister)
	if err != nil {
		return "", fmt.Errorf("the agent has plugins and listing their tools needs %s: %w", pluginLister, err)
	}
	return p, nil
}
