package agent

import (
	"errors"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// UserConfig is the user's own defaults for every run, in
// ${XDG_CONFIG_HOME:-~/.config}/delta/config.yaml: what an agent
// directory leaves open is taken from here. The precedence is flags,
// then the environment, then agent.yaml, then this file, then Delta's
// built-in defaults.
type UserConfig struct {
	// Path is the file read.
	Path string
	// Provider, Model and BaseURL are the default llm: used when
	// agent.yaml's llm block does not set them (and, for the model and
	// the base URL, when DELTA_MODEL or DELTA_BASE_URL does not either).
	Provider, Model, BaseURL string
	// Approvals is "ask" or "deny": what a call needing approval gets
	// when neither --approvals nor DELTA_APPROVALS says.
	Approvals string
	// Env are variables set for runs unless the environment has them.
	Env map[string]string
	// MCPServers are added to every agent (an agent's server of the same
	// name wins).
	MCPServers []MCPServer
}

var userConfigKeys = []string{"llm", "approvals", "env", "mcp_servers"}

// UserConfigPath is where the user config lives: $XDG_CONFIG_HOME/delta/
// config.yaml, else ~/.config/delta/config.yaml ("" when neither is known).
func UserConfigPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "delta", "config.yaml")
}

// ReadUserConfig reads the user config at path; nil (and no error) when
// the file does not exist. Problems are a *LoadError naming file:line.
func ReadUserConfig(path string) (*UserConfig, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	l := &loader{}
	l.cwd, _ = os.Getwd()
	l.home = filepath.Dir(path)
	d, root := l.readDoc(path)
	u := &UserConfig{Path: path}
	if root != nil {
		f := d.fields(root, "the user config", userConfigKeys)
		if llmNode := f["llm"]; llmNode.value != nil {
			lf := d.fields(llmNode.value, "the user config's llm", []string{"provider", "model", "base_url"})
			u.Provider, u.Model, u.BaseURL = d.str(lf["provider"], "llm.provider"), d.str(lf["model"], "llm.model"), d.str(lf["base_url"], "llm.base_url")
			if u.Provider != "" && !contains(providers, u.Provider) {
				d.problem(lf["provider"].value, ErrInvalid, "one of: openai, openai-compatible, anthropic, gemini", "unknown llm.provider %q", u.Provider)
			}
		}
		if u.Approvals = d.str(f["approvals"], "approvals"); u.Approvals != "" && u.Approvals != "ask" && u.Approvals != "deny" {
			d.problem(f["approvals"].value, ErrInvalid, "approvals: ask (pause for a human) or approvals: deny", "approvals must be ask or deny, not %q", u.Approvals)
		}
		u.Env = d.strMap(f["env"], "user config env")
		servers := f["mcp_servers"]
		if servers.value != nil && servers.value.Kind == yaml.MappingNode {
			servers.value = mcpServerMap(d, servers.value)
		}
		l.collectMCP(d, servers, &l.mcp)
		u.MCPServers = l.mcp
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	return u, nil
}

// ApplyTo gives the agent what its agent.yaml leaves open: the provider
// (when its llm block names neither a provider nor a model), the model and base URL (when neither
// agent.yaml nor the environment, env, sets them) and the MCP servers it
// does not have.
func (u *UserConfig) ApplyTo(a *Agent, getenv func(string) string) {
	if u == nil {
		return
	}
	// A model agent.yaml names without a provider keeps its provider.
	if u.Provider != "" && a.LLM.DefaultProvider && a.LLM.Model == "" {
		a.LLM.Provider, a.LLM.DefaultProvider = u.Provider, false
	}
	if u.Model != "" && a.LLM.Model == "" && getenv("DELTA_MODEL") == "" {
		a.LLM.Model = u.Model
	}
	if u.BaseURL != "" && a.LLM.BaseURL == "" && getenv("DELTA_BASE_URL") == "" {
		a.LLM.BaseURL = u.BaseURL
	}
	a.MCPServers = MergeMCPServers(u.MCPServers, a.MCPServers)
}

// ApprovalsDefault is the config's approvals ("" for a nil config).
func (u *UserConfig) ApprovalsDefault() string {
	if u == nil {
		return ""
	}
	return u.Approvals
}
