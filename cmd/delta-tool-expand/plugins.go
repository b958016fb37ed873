package main

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/tool"
	pluginhost "github.com/deltakit/delta/plugins/host"
)

// pluginTool is a plugin's tool in the expanded listing: it has no argv,
// the plugin named by Plugin serves it.
type pluginTool struct {
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	Plugin      string `json:"plugin" yaml:"plugin"`
	Parameters  any    `json:"parameters" yaml:"parameters"`
	raw         json.RawMessage
}

// pluginTools starts the agent's plugins once (checksums verified, as
// delta-run does) and lists the tools they add; a local tool of the same
// name wins, as in a run.
func pluginTools(a *agent.Agent, stderr io.Writer) ([]pluginTool, error) {
	if len(a.Plugins) == 0 {
		return nil, nil
	}
	h, err := pluginhost.New(a.Plugins, pluginhost.Options{Stderr: stderr})
	if err != nil {
		return nil, cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
	}
	defer h.Close()
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		return nil, cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
	}
	var out []pluginTool
	for _, s := range tb.Specs() {
		if slices.ContainsFunc(a.Tools, func(t tool.Tool) bool { return t.Name == s.Name }) {
			continue
		}
		var params any
		_ = json.Unmarshal(s.Parameters, &params)
		out = append(out, pluginTool{Name: s.Name, Description: s.Description, Plugin: tb.Plugin(s.Name), Parameters: params, raw: s.Parameters})
	}
	return out, nil
}
