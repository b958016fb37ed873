package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
)

// ConfigCmd groups the verbs about Delta's settings.
type ConfigCmd struct {
	Show ConfigShowCmd `cmd:"" help:"Print the settings a run started here would use (llm provider, model and base URL, approvals, sandbox, MCP servers, env keys) and where each came from: flag, environment, agent.yaml, user config or built-in default."`
}

// ConfigShowCmd prints the effective settings and their origins. It takes
// the flags of run that change them, so "delta config show --llm sonnet"
// shows what "delta run --llm sonnet" would use.
type ConfigShowCmd struct {
	Agent         string `short:"a" help:"Agent directory (default: the current directory; without an agent.yaml there, the built-in coding agent)." type:"path"`
	WorkDir       string `short:"w" name:"work-dir" help:"Workspace whose .env files count (default: the current directory)." type:"path" placeholder:"DIR"`
	LLM           string `name:"llm" help:"As run's --llm." placeholder:"PROVIDER[:ARG]"`
	Approvals     string `help:"As run's --approvals." placeholder:"ask|deny"`
	Sandbox       string `help:"As run's --sandbox." placeholder:"MODE"`
	JSON          bool   `name:"json" help:"Print {agent, settings: [{key, value, origin}]} as JSON."`
	overrideFlags `embed:""`
}

// shown is one setting as config show prints it.
type shown struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// Run prints the settings.
func (c *ConfigShowCmd) Run(std cli.Stdio) error {
	over, err := c.overrideFlags.over(runOverrides{}, false)
	if err != nil {
		return err
	}
	user, err := agent.ReadUserConfig(agent.UserConfigPath())
	if err != nil {
		return cli.WithCode(runs.ExitConfig, agent.HintOf(err), fmt.Errorf("user config: %w", err))
	}
	run := &RunCmd{Agent: c.Agent, LLM: c.LLM}
	dir, named, err := run.agentDir()
	if err != nil {
		return err
	}
	var b *builtinAgent
	if wantsBuiltin(dir, named) {
		if b, err = chooseBuiltin(c.LLM, user); err != nil {
			return err
		}
		if err := b.materialise(); err != nil {
			return err
		}
		dir = b.home
	}
	settings := make([]agent.Setting, 0, len(over.Config))
	for _, text := range over.Config {
		s, err := agent.ParseSetting(text)
		if err != nil {
			return cli.WithCode(cli.ExitUsage, "see man 5 delta-agent for the keys of agent.yaml", err)
		}
		settings = append(settings, s)
	}
	raw, err := agent.Load(dir)
	if err != nil {
		return cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
	}
	flagged, err := agent.LoadWith(dir, settings)
	if err != nil {
		return cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
	}
	workDir := c.WorkDir
	if workDir == "" {
		workDir = "."
	}
	env, err := provider.LoadEnv(workDir, raw.Home, os.Environ())
	if err != nil {
		return cli.WithCode(runs.ExitConfig, "", err)
	}
	l := layers{raw: raw, flagged: flagged, user: user, builtin: b, env: env, override: c.LLM, model: over.Model}
	out := l.llm()
	out = append(out, c.approvals(user), c.sandbox(raw, flagged))
	mcp, err := mcpOrigins(raw, user, over.MCPConfig)
	if err != nil {
		return err
	}
	out = append(append(out, mcp...), envOrigins(user)...)
	name := raw.Home
	if b != nil {
		name = raw.Home + " (built-in " + b.template + ")"
	}
	return printShown(std, c.JSON, name, out)
}

// layers are the sources of the llm settings, weakest first.
type layers struct {
	raw, flagged *agent.Agent
	user         *agent.UserConfig
	builtin      *builtinAgent
	env          map[string]string
	override     string
	model        string
}

// originNames name the layers, weakest first.
var originNames = []string{"built-in default", "user config", "agent.yaml", "environment", "flag"}

// at resolves the llm block with the first n+1 layers.
func (l layers) at(n int) (cfg agent.LLMConfig, env map[string]string) {
	env = map[string]string{}
	if n >= 3 {
		env = l.env
	}
	a := &agent.Agent{Home: l.raw.Home, LLM: agent.LLMConfig{Provider: "openai", DefaultProvider: true}}
	switch {
	case n >= 4:
		a.LLM = l.flagged.LLM
	case n >= 2:
		a.LLM = l.raw.LLM
	}
	if n >= 1 {
		l.user.ApplyTo(a, func(k string) string { return env[k] })
	}
	cfg = a.LLM
	if l.builtin != nil {
		cfg = l.builtin.llm(cfg, env)
	}
	override, model := "", ""
	if n >= 4 {
		override, model = l.override, l.model
	}
	cfg, _ = resolveLLM(cfg, override, model, env) // an incomplete layer is not an error here
	return cfg, env
}

// llm is the provider, model and base URL with the layer each comes from:
// the strongest layer that changed it.
func (l layers) llm() []shown {
	keys := []string{"llm.provider", "llm.model", "llm.base_url"}
	out := make([]shown, len(keys))
	for i := range originNames {
		cfg, env := l.at(i)
		vals := []string{cfg.Provider, cfg.Model, baseURL(cfg, env)}
		for k, v := range vals {
			if i == 0 || v != out[k].Value || l.sets(i, keys[k]) {
				out[k] = shown{Key: keys[k], Value: v, Origin: l.origin(i)}
			}
		}
	}
	for i := range out {
		if out[i].Value == "" {
			out[i].Value = "(none)"
		}
	}
	return out
}

// sets reports whether layer i names key itself (so that a value equal
// to a weaker layer's is still credited to it).
func (l layers) sets(i int, key string) bool {
	names := func(model string) bool { _, _, ok := provider.SplitModel(model); return ok }
	var p, m, u bool
	switch i {
	case 1:
		if l.user == nil {
			return false
		}
		p, m, u = l.user.Provider != "" || names(l.user.Model), l.user.Model != "", l.user.BaseURL != ""
	case 2:
		p, m, u = !l.raw.LLM.DefaultProvider || names(l.raw.LLM.Model), l.raw.LLM.Model != "", l.raw.LLM.BaseURL != ""
	case 3:
		model := strings.TrimSpace(l.env[modelVar])
		p, m, u = names(model), model != "", strings.TrimSpace(l.env["DELTA_BASE_URL"]) != ""
	case 4:
		p = l.override != "" || l.flagged.LLM.Provider != l.raw.LLM.Provider
		m = l.override != "" || l.model != "" || l.flagged.LLM.Model != l.raw.LLM.Model
		u = l.flagged.LLM.BaseURL != l.raw.LLM.BaseURL
	}
	return map[string]bool{"llm.provider": p, "llm.model": m, "llm.base_url": u}[key]
}

// origin names layer i, with the file it is read from.
func (l layers) origin(i int) string {
	switch {
	case i == 1 && l.user != nil:
		return "user config " + l.user.Path
	case i == 2:
		return "agent.yaml " + l.raw.ConfigPath
	}
	return originNames[i]
}

// baseURL is the endpoint the provider would call, as lib/provider picks
// it ("" for the provider's own).
func baseURL(cfg agent.LLMConfig, env map[string]string) string {
	if cfg.BaseURL != "" {
		return cfg.BaseURL
	}
	vars := map[string]string{"openai": "OPENAI_BASE_URL", "openai-compatible": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "gemini": "GEMINI_BASE_URL"}
	for _, v := range []string{"DELTA_BASE_URL", vars[cfg.Provider]} {
		if u := strings.TrimSpace(env[v]); v != "" && u != "" {
			return u
		}
	}
	if cfg.Provider == "scripted" || cfg.Provider == "replay" {
		return ""
	}
	return "(the provider's)"
}

// approvals is the approvals mode and its origin, as approvalFlags.mode
// resolves it.
func (c *ConfigShowCmd) approvals(user *agent.UserConfig) shown {
	switch {
	case c.Approvals != "":
		return shown{"approvals", c.Approvals, "flag"}
	case os.Getenv("DELTA_APPROVALS") != "":
		return shown{"approvals", os.Getenv("DELTA_APPROVALS"), "environment"}
	case user.ApprovalsDefault() != "":
		return shown{"approvals", user.Approvals, "user config " + user.Path}
	}
	return shown{"approvals", "ask", "built-in default"}
}

// sandbox is the sandbox mode and its origin, in sandbox.Resolve's order
// (a new run has no recorded mode): flag, environment, agent.yaml (or a -c
// setting of it), else none.
func (c *ConfigShowCmd) sandbox(raw, flagged *agent.Agent) shown {
	switch {
	case c.Sandbox != "":
		return shown{"sandbox", c.Sandbox, "flag"}
	case os.Getenv(sandbox.Env) != "":
		return shown{"sandbox", os.Getenv(sandbox.Env), "environment"}
	case flagged.Sandbox != nil && raw.Sandbox == nil:
		return shown{"sandbox", string(flagged.Sandbox.Mode), "flag (-c)"}
	case flagged.Sandbox != nil:
		return shown{"sandbox", string(flagged.Sandbox.Mode), "agent.yaml " + raw.ConfigPath}
	}
	return shown{"sandbox", string(sandbox.DangerFullAccess), "built-in default"}
}

// mcpOrigins are the MCP servers a run gets, each with where it is
// defined (a --mcp-config file's server replaces the agent's, whose
// replaces the user config's).
func mcpOrigins(raw *agent.Agent, user *agent.UserConfig, files []string) ([]shown, error) {
	origin := map[string]string{}
	var all []agent.MCPServer
	add := func(servers []agent.MCPServer, from string) {
		for _, s := range servers {
			origin[s.Name] = from
		}
		all = agent.MergeMCPServers(all, servers)
	}
	if user != nil {
		add(user.MCPServers, "user config "+user.Path)
	}
	add(raw.MCPServers, "agent.yaml "+raw.ConfigPath)
	for _, f := range files {
		servers, err := agent.ReadMCPConfig(f)
		if err != nil {
			return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), fmt.Errorf("--mcp-config: %w", err))
		}
		add(servers, "flag --mcp-config "+f)
	}
	out := make([]shown, 0, len(all))
	for _, s := range all {
		what := s.URL
		if what == "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		out = append(out, shown{"mcp_servers." + s.Name, what, origin[s.Name]})
	}
	return out, nil
}

// envOrigins are the names of the user config's env variables (never
// their values: they may be secrets), and whether the environment already
// sets them (then the user config's value is not used).
func envOrigins(user *agent.UserConfig) []shown {
	if user == nil {
		return nil
	}
	names := make([]string, 0, len(user.Env))
	for k := range user.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]shown, 0, len(names))
	for _, k := range names {
		from := "user config " + user.Path
		if _, set := os.LookupEnv(k); set {
			from = "environment"
		}
		out = append(out, shown{"env." + k, "(set)", from})
	}
	return out
}

// printShown prints the settings as aligned text, or as JSON.
func printShown(std cli.Stdio, asJSON bool, agentName string, out []shown) error {
	if asJSON {
		enc := json.NewEncoder(std.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Agent    string  `json:"agent"`
			Settings []shown `json:"settings"`
		}{agentName, out})
	}
	width := len("agent")
	for _, s := range out {
		width = max(width, len(s.Key))
	}
	fmt.Fprintf(std.Out, "%-*s  %s\n", width, "agent", agentName)
	for _, s := range out {
		fmt.Fprintf(std.Out, "%-*s  %s  (%s)\n", width, s.Key, s.Value, s.Origin)
	}
	return nil
}
