package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	pluginhost "github.com/deltakit/delta/plugins/host"
)

// ToolsCmd is the hidden `delta-plugin tools`: delta-tool-expand runs it to
// list an agent's plugin tools, so that only delta-plugin and delta-run link
// the plugin machinery (gRPC, go-plugin) and delta-tool-expand stays small
// and quick to start. It reads the agent's plugins: entries as a JSON array
// on stdin, starts each plugin once (checksums verified, as delta-run does)
// and prints one JSON object on stdout: {"tools": [...]} or, when a plugin
// cannot be used, {"error": "...", "hint": "..."} with exit code 126.
type ToolsCmd struct {
}

// toolsReply is what ToolsCmd prints.
type toolsReply struct {
	Tools []listedTool `json:"tools"`
	Error string       `json:"error,omitempty"`
	Hint  string       `json:"hint,omitempty"`
}

// listedTool is one plugin tool as the model sees it, with the plugin that
// serves it.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Plugin      string          `json:"plugin"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Run lists the tools of the plugins named on stdin.
func (c *ToolsCmd) Run(root *CLI, std cli.Stdio) error {
	var refs []agent.PluginRef
	if err := json.NewDecoder(std.In).Decode(&refs); err != nil {
		return fmt.Errorf("read the plugins entries (a JSON array) on stdin: %w", err)
	}
	reply, err := listTools(root, refs, std.Err)
	if err != nil {
		reply = toolsReply{Error: err.Error(), Hint: pluginhost.Hint(err)}
	}
	enc := json.NewEncoder(std.Out)
	enc.SetEscapeHTML(false)
	if werr := enc.Encode(reply); werr != nil {
		return fmt.Errorf("write the tools: %w", werr)
	}
	if err != nil {
		// the reply already carries the error: nothing more on stderr
		return &cli.Error{Code: runs.ExitConfig, Err: err, Silent: true}
	}
	return nil
}

// listTools starts the plugins and lists the tools they add, in agent.yaml
// order.
func listTools(root *CLI, refs []agent.PluginRef, stderr io.Writer) (toolsReply, error) {
	opts := pluginhost.Options{Stderr: stderr}
	if root.Dir != "" {
		opts.Dir = root.Dir
	}
	h, err := pluginhost.New(refs, opts)
	if err != nil {
		return toolsReply{}, err
	}
	defer h.Close()
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		return toolsReply{}, err
	}
	reply := toolsReply{Tools: []listedTool{}}
	for _, s := range tb.Specs() {
		reply.Tools = append(reply.Tools, listedTool{Name: s.Name, Description: s.Description, Plugin: tb.Plugin(s.Name), Parameters: s.Parameters})
	}
	return reply, nil
}
