package main

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
	pluginhost "github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/mcp"
)

// runTools is the toolbox a run's engine calls, merged from every tool
// source in order of precedence (the agent's own tools first), and the
// plugin host whose hook plugins the run's hooks call too.
type runTools struct {
	// box is what the engine is given: the merged toolbox itself, which
	// also resolves command lines (engine.Resolver) for hooks and
	// approvals; a wrapper would hide that.
	box     engine.Toolbox
	plugins *pluginhost.Host
	// boxes are the sources merged into box, in order of precedence.
	boxes []engine.Toolbox
	// stops stop the processes behind the tool sources (plugins, MCP
	// servers), in the order they were started.
	stops []func() error
}

// Close closes the toolbox and stops the processes behind it, the last
// started first.
func (t *runTools) Close() error {
	var errs []error
	if t.box != nil {
		errs = append(errs, t.box.Close())
	}
	for i := len(t.stops) - 1; i >= 0; i-- {
		errs = append(errs, t.stops[i]())
	}
	return errors.Join(errs...)
}

// add merges a tool source after those already there (which win a name
// they share with it).
func (t *runTools) add(box engine.Toolbox) {
	t.boxes = append(t.boxes, box)
	t.box = engine.Merge(slices.Clone(t.boxes)...)
}

// runToolbox assembles the run's tools: the agent's command tools, its
// plugins' tools, its MCP servers' tools, the subagents tools and, for a
// workflow agent, the workflow's tools. A source that does not start is an
// error, and what was started is stopped again.
func runToolbox(o driveOpts) (*runTools, error) {
	t := &runTools{}
	commands := engine.NewCommandTools(o.agent, os.Environ())
	commands.SetSandbox(o.rules)
	t.add(commands)
	if err := t.addSources(o); err != nil {
		t.Close()
		return nil, err
	}
	t.box = filterTools(t.box, o.overrides.AllowedTools, o.overrides.DisallowedTools, o.std.Err)
	return t, nil
}

// addSources adds every tool source after the agent's command tools.
func (t *runTools) addSources(o driveOpts) error {
	ctx := o.ctx
	// Plugins (agent.yaml plugins:, hook plugins): one process each for the
	// run, stopped when it ends.
	plugins, err := pluginhost.New(o.agent.Plugins, pluginhost.Options{Stderr: o.std.Err, Verbose: o.verbose, Env: agent.FilterEnv(os.Environ(), o.agent.Env), ExecWrapper: o.agent.ExecWrapper, Sandbox: o.rules})
	if err != nil {
		return cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
	}
	t.plugins = plugins
	t.stops = append(t.stops, plugins.Close)
	if len(o.agent.Plugins) > 0 {
		ptools, err := plugins.Toolbox(ctx)
		if err != nil {
			return cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
		}
		t.add(ptools)
	}
	// MCP servers (agent.yaml mcp_servers:): started at once, stopped when
	// the run ends; one that does not start is a configuration error.
	if len(o.agent.MCPServers) > 0 {
		mopts := mcp.AgentOptions(o.agent, os.Environ(), o.meta.ToolDir(), o.std.Err, o.verbose)
		mopts.Sandbox = o.rules
		mtools, err := mcp.Start(ctx, o.agent.MCPServers, mopts)
		if err != nil {
			return mcp.StartFailed(err)
		}
		t.stops = append(t.stops, mtools.Close)
		for _, w := range append(mtools.Warnings(), mtools.Shadow(t.box)...) {
			fmt.Fprintln(o.std.Err, w)
		}
		t.add(mtools)
	}
	if o.agent.Subagents.Enabled { // spawn_agent & co. (lib/subagent)
		sub, err := subagentTools(ctx, o, t.box)
		if err != nil {
			return err
		}
		t.add(sub)
	}
	// A workflow agent also has the workflow's tools (after its own).
	wtools, err := workflowTools(o.runDir, o.meta)
	if err != nil {
		return err
	}
	if wtools != nil {
		t.add(wtools)
	}
	return nil
}

// offeredTools are the names of the tools the model is offered: the run's
// toolbox and the built-in ask_human.
func offeredTools(t *runTools) []string {
	names := []string{}
	for _, s := range t.box.Specs() {
		names = append(names, s.Name)
	}
	return append(names, tool.AskHumanName)
}
