package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
)

// CLI is delta-doctor's grammar.
type CLI struct {
	cli.ManFlag

	Agent   string `short:"a" placeholder:"DIR" help:"Also check this agent: it loads, its scripts run, its provider answers."`
	LLM     string `name:"llm" placeholder:"PROVIDER[:MODEL]" help:"Check this provider instead of the agent's: openai, anthropic or gemini, with or without a model (openai:gpt-4o, anthropic/claude-sonnet-4-5, or an alias such as sonnet)."`
	Offline bool   `help:"Do not contact the model endpoint (the key is still looked for)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-doctor checks that Delta is ready to run agents and says what to fix. "delta doctor" runs it.

It checks: that every Delta command is on PATH (agents' tools call delta-sessions, delta-pty and delta-context by name) and that they are of one version; that an API key is set (DELTA_API_KEY, or the provider's own variable, in the environment or a .env file of the workspace, the agent or the project root); that the model endpoint (DELTA_BASE_URL, or the provider's default) answers to that key — a GET of its model list, which spends no tokens; that every installed plugin still has its locked checksum; and which sandbox mechanisms the kernel offers (Landlock's ABI, file and TCP rules, network namespaces), which sandboxed runs need. With --agent it also checks the agent as "delta tool expand --check" does and uses its llm settings.

Each check prints one line: "ok", "warn" (works, but look) or "FAIL" (a run would fail), with what to do. The key itself is never printed.

Exit codes: 0 nothing failed (warnings allowed); 1 a check failed; 2 usage error.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "check that Delta is ready to run agents"
	return nil
}

// Run performs every check and prints one line each.
func (c *CLI) Run(std cli.Stdio) error {
	r := &report{out: std.Out}
	checkBinaries(r)
	cfg := c.llmConfig(r)
	c.checkModel(r, cfg)
	checkPlugins(r)
	checkSandbox(r)
	if r.failed > 0 {
		return cli.Errorf(runs.ExitFailed, "", "%d check%s failed", r.failed, plural(r.failed))
	}
	return nil
}

// llmConfig is the provider to check: --llm, else the agent's, else the
// default (openai). Loading the agent is itself a check.
func (c *CLI) llmConfig(r *report) agent.LLMConfig {
	cfg := agent.LLMConfig{Provider: "openai"}
	if c.Agent != "" {
		a, err := agent.Load(c.Agent)
		if err != nil {
			r.fail("agent", fmt.Sprintf("%s does not load: %v", c.Agent, firstLine(err)), "see every problem with: delta tool expand --check "+c.Agent)
		} else {
			problems, warnings := agent.Lint(a)
			switch {
			case len(problems) > 0:
				r.fail("agent", fmt.Sprintf("%s: %s", a.Name, problems[0].String()), "see every problem with: delta tool expand --check "+c.Agent)
			case len(warnings) > 0:
				r.warn("agent", fmt.Sprintf("%s loads; %s", a.Name, strings.TrimPrefix(warnings[0], "[WARNING] ")), "")
			default:
				r.ok("agent", fmt.Sprintf("%s loads, %s", a.Name, toolSources(a)))
			}
			cfg = a.LLM
		}
	}
	if c.LLM != "" {
		name, model, err := provider.ParseModel(c.LLM)
		if err != nil {
			// Probe reports the unknown provider.
			name, model, _ = strings.Cut(c.LLM, ":")
		}
		cfg = agent.LLMConfig{Provider: name, Model: model}
	}
	return cfg
}

// checkModel finds the key and asks the endpoint.
func (c *CLI) checkModel(r *report, cfg agent.LLMConfig) {
	wd, _ := os.Getwd()
	env, err := provider.LoadEnv(wd, c.Agent, os.Environ())
	if err != nil {
		r.fail("model", err.Error(), "fix the .env file it names")
		return
	}
	if c.Offline {
		if _, err := provider.New(cfg, env); err != nil {
			r.fail("model", firstLine(err), "")
			return
		}
		r.ok("model", "a key is set (not contacted: --offline)")
		return
	}
	what, err := provider.Probe(context.Background(), cfg, env)
	if err != nil {
		r.fail("model", firstLine(err), "")
		return
	}
	r.ok("model", what)
}

// report prints one line per check and counts failures.
type report struct {
	out    io.Writer
	failed int
}

func (r *report) ok(check, msg string) { fmt.Fprintf(r.out, "ok    %-9s %s\n", check, msg) }

func (r *report) warn(check, msg, hint string) {
	fmt.Fprintf(r.out, "warn  %-9s %s\n", check, msg)
	r.hint(hint)
}

func (r *report) fail(check, msg, hint string) {
	r.failed++
	fmt.Fprintf(r.out, "FAIL  %-9s %s\n", check, msg)
	r.hint(hint)
}

func (r *report) hint(h string) {
	if h != "" {
		fmt.Fprintf(r.out, "                → %s\n", h)
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// toolSources says where an agent's tools come from: its command tools,
// and the plugins and MCP servers (doctor does not start them to count
// their tools).
func toolSources(a *agent.Agent) string {
	var parts []string
	if n := len(a.Tools); n > 0 || (len(a.Plugins) == 0 && len(a.MCPServers) == 0) {
		parts = append(parts, fmt.Sprintf("%d command tool%s", n, plural(n)))
	}
	var names []string
	for _, p := range a.Plugins {
		names = append(names, p.Name)
	}
	if len(names) > 0 {
		parts = append(parts, fmt.Sprintf("the tools of plugin%s %s", plural(len(names)), strings.Join(names, ", ")))
	}
	names = names[:0]
	for _, m := range a.MCPServers {
		names = append(names, m.Name)
	}
	if len(names) > 0 {
		parts = append(parts, fmt.Sprintf("the tools of MCP server%s %s", plural(len(names)), strings.Join(names, ", ")))
	}
	return strings.Join(parts, " and ")
}
