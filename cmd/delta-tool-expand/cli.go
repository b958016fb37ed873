package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
	"gopkg.in/yaml.v3"
)

// CLI is the delta-tool-expand grammar.
type CLI struct {
	cli.ManFlag

	Agent  string `arg:"" optional:"" default:"." help:"Agent directory, or its agent.yaml (default: the current directory)."`
	Format string `short:"f" enum:"yaml,json" default:"yaml" help:"Output format of the expanded tools: yaml or json."`
	Check  bool   `xor:"action" help:"Only validate the agent: print nothing on stdout, every problem on stderr, exit 126 when there is one."`
	Call   string `xor:"action" placeholder:"TOOL" help:"Print the argv and stdin a call of TOOL would execute (nothing is run)."`
	Args   string `placeholder:"JSON" help:"The call's arguments, a JSON object, as the model would send them (with --call; default {})."`
	Schema bool   `xor:"action" help:"Print the tools as the model sees them: a JSON array of {name, description, parameters}, built-in ask_human (and, with subagents: on, spawn_agent, send_input, wait and close_agent) included."`
}

// Help is the long description, and the man page's DESCRIPTION.
func (CLI) Help() string {
	return `delta-tool-expand loads an agent exactly as delta-run does (agent.yaml, imports, hooks.yaml, context.yaml) and prints every tool after imports are merged, in the expanded form: each tool as command: (the fixed argv) plus parameters:, each parameter with its type, whether it is required, its default, how it is injected (inject_as: argument, stdin or option) and, for arguments, its position. An exec: tool shows its argv with ${name} where a value goes (inside that one element, never re-split); a shell: tool shows sh -c SCRIPT -- with the script using "$1", "$2" …, so you can check the quoting; raw: true marks a ${name:raw} value the script uses unquoted. Plugin tools are listed with plugin: NAME and no argv; to list them, delta-tool-expand runs delta-plugin (found next to it, then on PATH), which starts each plugin once with its checksum verified. The tools of the agent's MCP servers (mcp_servers:) are listed the same way, as SERVER__TOOL with mcp_server: NAME; delta-mcp starts each server once to list them.
The expanded form is itself valid agent.yaml: its command: tools pasted into tools: load back and build the same calls (see delta-agent(5), TOOLS); plugin tools come from plugins: instead.
With --call TOOL --args JSON it prints {"argv": [...], "stdin": "..." | null}: exactly what would be executed, without running it. With --schema it prints the JSON Schemas the model sees. With --check it validates only: besides load problems it finds what would break a run, a hook or generator script that is missing or not executable, a hook naming a plugin agent.yaml does not list, a jq generator that does not compile, a plugin that is missing or whose binary no longer has its locked checksum, an MCP server that does not start (exit 126), and warns of programs not on PATH and of local tools that hide a plugin's tool. Load problems are listed as file:line:column: message, each with a hint. Deprecation warnings go to stderr. The tool syntax is documented in delta-agent(5).
Exit codes: 0 ok; 1 the --call arguments or tool name are wrong; 2 bad command line; 126 the agent does not load (every problem is listed on stderr).`
}

// Run loads the agent and performs the selected action.
func (c *CLI) Run(std cli.Stdio) error {
	stdout, stderr := std.Out, std.Err
	if c.Args != "" && c.Call == "" {
		return cli.Errorf(cli.ExitUsage, "name the tool: delta-tool-expand --call TOOL --args JSON", "--args needs --call")
	}
	if c.Args == "" {
		c.Args = "{}"
	}
	a, err := load(c.Agent, stderr)
	if err != nil {
		return err
	}
	var plugin []pluginTool
	if !c.Check {
		if plugin, err = pluginTools(a, stderr); err != nil {
			return err
		}
		mtools, _, err := mcpTools(a, plugin, stderr)
		if err != nil {
			return err
		}
		plugin = append(plugin, mtools...)
	}
	switch {
	case c.Check:
		if err := lint(a, stderr); err != nil {
			return err
		}
		// Plugins start once, as in a run: a missing binary or a checksum
		// that no longer matches is a configuration error now.
		ptools, shadowed, err := pluginToolsShadowed(a, stderr)
		if err != nil {
			return err
		}
		for _, s := range shadowed {
			fmt.Fprintf(stderr, "[WARNING] local tool %s hides the plugin's tool of that name\n", s)
		}
		// MCP servers start too: one that does not is a configuration error.
		mtools, mshadowed, err := mcpTools(a, ptools, stderr)
		if err != nil {
			return err
		}
		for _, s := range mshadowed {
			fmt.Fprintf(stderr, "[WARNING] local tool %s hides the MCP server's tool of that name\n", s)
		}
		ptools = append(ptools, mtools...)
		showApproval(stderr, a, ptools)
		builtin := tool.AskHumanName
		if a.Subagents.Enabled {
			builtin += ", spawn_agent, send_input, wait, close_agent"
		}
		fmt.Fprintf(stderr, "delta-tool-expand: ok: agent %s, %d tools (and the built-in %s)\n", a.Name, len(a.Tools)+len(ptools), builtin)
		return nil
	case c.Call != "":
		if i := slices.IndexFunc(plugin, func(p pluginTool) bool { return p.Name == c.Call && p.MCPServer != "" }); i >= 0 {
			return cli.Errorf(runs.ExitFailed, "see its parameters with: delta-tool-expand --schema", "tool %q is served by mcp server %q: it has no argv", c.Call, plugin[i].MCPServer)
		}
		if i := slices.IndexFunc(plugin, func(p pluginTool) bool { return p.Name == c.Call }); i >= 0 {
			return cli.Errorf(runs.ExitFailed, "see its parameters with: delta-tool-expand --schema", "tool %q is served by plugin %q: it has no argv", c.Call, plugin[i].Plugin)
		}
		return printCall(stdout, a, plugin, c.Call, c.Args)
	case c.Schema:
		return writeJSON(stdout, specs(a, plugin))
	case c.Format == "json":
		return writeJSON(stdout, expanded{Tools: tools(a, plugin)})
	default:
		return writeYAML(stdout, expanded{Tools: tools(a, plugin)})
	}
}

// load loads the agent, prints its warnings, and turns load problems into
// a listing on stderr and an exit-126 error.
func load(path string, stderr io.Writer) (*agent.Agent, error) {
	a, err := agent.Load(path)
	var le *agent.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Fprintln(stderr, p.String())
			if p.Hint != "" {
				fmt.Fprintf(stderr, "  hint: %s\n", p.Hint)
			}
		}
		n := len(le.Problems)
		return nil, cli.Errorf(runs.ExitConfig, "", "agent %s does not load: %d problem%s", path, n, plural(n))
	}
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "", err)
	}
	for _, w := range a.Warnings {
		fmt.Fprintln(stderr, w)
	}
	return a, nil
}

// lint reports what loads but would break a run: problems like load
// problems (exit 126), warnings on stderr.
func lint(a *agent.Agent, stderr io.Writer) error {
	if err := checkJQ(a, stderr); err != nil {
		return err
	}
	problems, warnings := agent.Lint(a)
	for _, w := range warnings {
		fmt.Fprintln(stderr, w)
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p.String())
		if p.Hint != "" {
			fmt.Fprintf(stderr, "  hint: %s\n", p.Hint)
		}
	}
	if n := len(problems); n > 0 {
		return cli.Errorf(runs.ExitConfig, "", "agent %s would fail when it runs: %d problem%s", a.Home, n, plural(n))
	}
	return nil
}

// checkJQ compiles the jq expressions of the agent's approval rules
// (lib/approval) and has delta-context compile its jq generators, when it
// has any: the context generators' jq is linked by delta-context.
func checkJQ(a *agent.Agent, stderr io.Writer) error {
	failed := fmt.Sprintf("agent %s would fail when it runs: a jq expression (context generator or approval rule) does not compile", a.Home)
	if _, problems := approval.Compile(a); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stderr, p.String())
			if p.Hint != "" {
				fmt.Fprintf(stderr, "  hint: %s\n", p.Hint)
			}
		}
		return cli.Errorf(runs.ExitConfig, "", "%s", failed)
	}
	if !a.Context.HasJQ() {
		return nil
	}
	bin, err := cli.FindCommand("delta-context")
	if err != nil {
		return cli.WithCode(runs.ExitConfig, "install delta-context next to delta-tool-expand (make install does) or on PATH",
			fmt.Errorf("checking the jq generators of context.yaml needs delta-context: %w", err))
	}
	cmd := exec.Command(bin, "check-jq", a.Home)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == runs.ExitConfig {
			return cli.Errorf(runs.ExitConfig, "", "%s", failed)
		}
		return cli.WithCode(runs.ExitConfig, "", fmt.Errorf("check the jq generators with %s: %w", bin, err))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// expanded is the printed document: the tools list in expanded form.
type expanded struct {
	Tools []any `json:"tools" yaml:"tools"`
}

// tools returns every tool to print: the agent's, then the plugins' (each
// marked with plugin: NAME, as it has no argv).
func tools(a *agent.Agent, plugin []pluginTool) []any {
	out := make([]any, 0, len(a.Tools)+len(plugin))
	for _, t := range a.Tools {
		out = append(out, t)
	}
	for _, p := range plugin {
		out = append(out, p)
	}
	return out
}

// specs returns the tools as the model sees them: the agent's tools, the
// plugins' tools, then the built-in ask_human and, with subagents: on, the
// subagent tools.
func specs(a *agent.Agent, plugin []pluginTool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(a.Tools)+len(plugin)+1)
	for _, t := range a.Tools {
		out = append(out, tool.Spec(t))
	}
	for _, p := range plugin {
		out = append(out, llm.ToolSpec{Name: p.Name, Description: p.Description, Parameters: p.raw})
	}
	out = append(out, tool.AskHumanSpec())
	if a.Subagents.Enabled {
		var agents []string
		for _, d := range a.Subagents.Agents {
			agents = append(agents, d.Name)
		}
		out = append(out, tool.SubagentSpecs(agents)...)
	}
	return out
}

// printCall builds one call and prints its argv and stdin.
func printCall(w io.Writer, a *agent.Agent, plugin []pluginTool, name, args string) error {
	if name == tool.AskHumanName {
		return cli.Errorf(runs.ExitFailed, "ask_human is answered by a human through delta-run, not executed as a command", "ask_human is built in: it has no argv")
	}
	i := slices.IndexFunc(a.Tools, func(t tool.Tool) bool { return t.Name == name })
	if i < 0 {
		var names []string
		for _, t := range specs(a, plugin) {
			names = append(names, t.Name)
		}
		return cli.Errorf(runs.ExitFailed, "tools of this agent: "+strings.Join(names, ", "), "no tool %q in agent %s", name, a.Name)
	}
	call, err := tool.Build(a.Tools[i], json.RawMessage(args))
	if err != nil {
		return cli.WithCode(runs.ExitFailed, "see the tool's parameters with: delta-tool-expand --schema", fmt.Errorf("build call: %w", err))
	}
	return writeJSON(w, call)
}

func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeYAML(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode YAML: %w", err)
	}
	enc.Close()
	_, err := w.Write(b.Bytes())
	return err
}

// BeforeReset gives the man page its NAME line (kong takes the one-line
// summary from the application's Help, which cli.Run leaves empty).
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "show, check and preview the tools of a Delta agent"
	return nil
}
