package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/tool"
	"github.com/deltakit/delta/plugins/toolhost"
)

// runTools is the toolbox a run's engine calls, merged from every tool
// source in order of precedence (the agent's own tools first), and the
// tool host that runs the agent's plugins and MCP servers.
type runTools struct {
	// box is what the engine is given: the merged toolbox itself, which
	// also resolves command lines (engine.Resolver) for hooks and
	// approvals; a wrapper would hide that.
	box engine.Toolbox
	// boxes are the sources merged into box, in order of precedence.
	boxes []engine.Toolbox
	// stops stop the processes behind the tool sources, in the order they
	// were started.
	stops []func() error

	// host runs the plugins and MCP servers (delta-toolhost): started with
	// the toolbox when the agent has any, else by the first hook that
	// hooks.yaml routes to a plugin (hostConfig says with what); nil
	// until then, hostErr when it did not start.
	hostMu     sync.Mutex
	host       *toolhost.Host
	hostErr    error
	hostConfig toolhost.Config
	hostStderr io.Writer
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
	t.hostMu.Lock()
	defer t.hostMu.Unlock()
	if t.host != nil {
		errs = append(errs, t.host.Close())
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
	t := &runTools{hostStderr: o.std.Err}
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

// toolHostConfig is what the tool host is started with for the run: what
// the plugin host and the MCP client were given when they ran in
// delta-run, local the names of the tools that win over MCP tools.
func toolHostConfig(o driveOpts, local []llm.ToolSpec) toolhost.Config {
	cfg := toolhost.Config{Plugins: o.agent.Plugins, PluginTools: len(o.agent.Plugins) > 0,
		PluginEnv: agent.FilterEnv(os.Environ(), o.agent.Env), ExecWrapper: o.agent.ExecWrapper, ToolTimeoutMS: o.agent.ToolTimeoutMS,
		Verbose: o.verbose, Sandbox: o.rules, ProviderEnv: o.providerEnv}
	if len(o.agent.MCPServers) > 0 {
		cfg.MCPServers, cfg.MCPEnviron, cfg.ToolDir, cfg.Output = o.agent.MCPServers, os.Environ(), o.meta.ToolDir(), o.agent.Output
	}
	for _, s := range local {
		cfg.Local = append(cfg.Local, s.Name)
	}
	return cfg
}

// addSources adds every tool source after the agent's command tools.
func (t *runTools) addSources(o driveOpts) error {
	ctx := o.ctx
	// Plugins (agent.yaml plugins:) and MCP servers (mcp_servers:): one
	// tool host for the run, started at once when there are any, stopped
	// when the run ends; one that does not start is a configuration error.
	t.hostConfig = toolHostConfig(o, t.box.Specs())
	if len(o.agent.Plugins) > 0 || len(o.agent.MCPServers) > 0 {
		h, warnings, err := toolhost.Start(ctx, t.hostConfig, o.std.Err)
		if err != nil {
			return err
		}
		t.host = h
		for _, w := range warnings {
			fmt.Fprintln(o.std.Err, w)
		}
		t.add(h)
	}
	if o.agent.Subagents.Enabled { // spawn_agent & co. (lib/subagent)
		sub, err := subagentTools(ctx, o, t.box)
		if err != nil {
			return err
		}
		t.add(sub)
	}
	// A workflow agent also has the workflow's tools (after its own).
	wtools, err := workflowTools(ctx, o)
	if err != nil {
		return err
	}
	if wtools != nil {
		t.add(wtools)
	}
	return nil
}

// hook runs a hook that hooks.yaml routes to a plugin (hooks.PluginFunc),
// starting the tool host for it when the agent has no plugin or MCP
// server of its own.
func (t *runTools) hook(ctx context.Context, plugin string, req engine.HookRequest) (engine.HookDecision, error) {
	t.hostMu.Lock()
	if t.host == nil && t.hostErr == nil {
		t.host, _, t.hostErr = toolhost.Start(ctx, t.hostConfig, t.hostStderr)
	}
	h, err := t.host, t.hostErr
	t.hostMu.Unlock()
	if err != nil {
		return engine.HookDecision{Action: engine.HookContinue}, err
	}
	return h.Hook(ctx, plugin, req)
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
