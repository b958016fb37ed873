package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// overrideFlags change the agent for one run without editing its files,
// as claude -p, codex exec and llm let a user do. run records them in
// ENGINE_START's config, and continue applies them again unless it is
// given others.
type overrideFlags struct {
	Model              string   `name:"model" help:"Use model NAME of the agent's provider for this run (the provider stays: --llm changes both)." placeholder:"NAME"`
	Config             []string `short:"c" name:"config" sep:"none" help:"Override an agent.yaml key for this run (repeatable): a dotted path and a YAML value, e.g. -c max_iterations=50 -c llm.temperature=0.2 -c 'llm.stop=[END]'. The value is checked as if written in agent.yaml; an unknown key is an error listing the valid ones." placeholder:"KEY=VALUE"`
	AppendSystemPrompt string   `name:"append-system-prompt" help:"Add TEXT to the system prompt, as a system message after the agent's context blocks." placeholder:"TEXT"`
	AllowedTools       []string `name:"allowed-tools" help:"Offer the model only the tools matching these comma-separated names or globs (shell, 'mcp_*'); calls of other tools are refused as unknown. ask_human is always offered." placeholder:"LIST"`
	DisallowedTools    []string `name:"disallowed-tools" help:"Never offer the tools matching these comma-separated names or globs (applied after --allowed-tools)." placeholder:"LIST"`
	MCPConfig          []string `name:"mcp-config" sep:"none" type:"path" help:"Add the MCP servers of FILE (repeatable): Claude Code, Claude Desktop and Cursor's {\"mcpServers\": {…}} JSON, Codex's TOML [mcp_servers.NAME] tables, or a YAML list as agent.yaml's mcp_servers:. Relative commands and paths are resolved from the current directory." placeholder:"FILE"`
}

// runOverrides are the overrides a run was started or continued with, as
// ENGINE_START's config records them ("overrides").
type runOverrides struct {
	Model              string   `json:"model,omitempty"`
	Config             []string `json:"config,omitempty"`
	AppendSystemPrompt string   `json:"append_system_prompt,omitempty"`
	AllowedTools       []string `json:"allowed_tools,omitempty"`
	DisallowedTools    []string `json:"disallowed_tools,omitempty"`
	// MCPConfig are the files' absolute paths.
	MCPConfig []string `json:"mcp_config,omitempty"`
}

// empty reports whether no override is set.
func (o runOverrides) empty() bool {
	return o.Model == "" && len(o.Config) == 0 && o.AppendSystemPrompt == "" && len(o.AllowedTools) == 0 &&
		len(o.DisallowedTools) == 0 && len(o.MCPConfig) == 0
}

// over is the overrides of this invocation on top of prev, those recorded
// for the run: a flag given replaces prev's value, -c settings add to
// prev's (a later setting of a key wins), and a new --llm drops a recorded
// --model, which would otherwise override its model.
func (f overrideFlags) over(prev runOverrides, newLLM bool) (runOverrides, error) {
	o := prev
	if newLLM {
		o.Model = ""
	}
	if f.Model != "" {
		o.Model = f.Model
	}
	o.Config = append([]string(nil), prev.Config...)
	for _, c := range f.Config {
		// A setting given again (delta chat passes its flags on every
		// turn) moves to the end instead of being recorded twice.
		o.Config = append(slices.DeleteFunc(o.Config, func(s string) bool { return s == c }), c)
	}
	if f.AppendSystemPrompt != "" {
		o.AppendSystemPrompt = f.AppendSystemPrompt
	}
	if len(f.AllowedTools) > 0 {
		o.AllowedTools = f.AllowedTools
	}
	if len(f.DisallowedTools) > 0 {
		o.DisallowedTools = f.DisallowedTools
	}
	if len(f.MCPConfig) > 0 {
		o.MCPConfig = nil
		for _, p := range f.MCPConfig {
			abs, err := filepath.Abs(p)
			if err != nil {
				return o, fmt.Errorf("--mcp-config %s: %w", p, err)
			}
			o.MCPConfig = append(o.MCPConfig, abs)
		}
	}
	return o, nil
}

// recordedOverrides are the overrides of the run's last ENGINE_START
// (none when its journal has none or cannot be read: the run then goes on
// with this invocation's flags alone).
func recordedOverrides(runDir string) runOverrides {
	var o runOverrides
	events, err := journal.ReadFile(filepath.Join(runDir, runs.JournalFile))
	if err != nil {
		return o
	}
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type != journal.EngineStart {
			continue
		}
		var cfg struct {
			Overrides runOverrides `json:"overrides"`
		}
		if json.Unmarshal(events[i].Config, &cfg) == nil {
			o = cfg.Overrides
		}
		break
	}
	return o
}

// loadAgentWith loads the agent with the overrides' -c settings applied,
// what the user config gives where agent.yaml is silent, and the
// --mcp-config servers added, and prints its warnings.
func loadAgentWith(path string, o runOverrides, user *agent.UserConfig, std cli.Stdio) (*agent.Agent, error) {
	var settings []agent.Setting
	for _, text := range o.Config {
		s, err := agent.ParseSetting(text)
		if err != nil {
			return nil, cli.WithCode(cli.ExitUsage, "see man 5 delta-agent for the keys of agent.yaml", err)
		}
		settings = append(settings, s)
	}
	a, err := agent.LoadWith(path, settings)
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
	}
	user.ApplyTo(a, os.Getenv)
	for _, file := range o.MCPConfig {
		servers, err := agent.ReadMCPConfig(file)
		if err != nil {
			return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), fmt.Errorf("--mcp-config: %w", err))
		}
		a.MCPServers = agent.MergeMCPServers(a.MCPServers, servers)
	}
	printWarnings(a, std.Err)
	return a, nil
}

// printWarnings prints the agent's load warnings on stderr.
func printWarnings(a *agent.Agent, stderr io.Writer) {
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "delta-run: warning: %s\n", w)
	}
}
