package agent

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// MCPServer is one entry of agent.yaml's mcp_servers list: an MCP server
// whose tools the model may call as SERVER__TOOL. A server is either a
// program Delta starts (Command, stdio) or an address (URL, streamable
// HTTP).
type MCPServer struct {
	Name string
	// Command and Args start a stdio server; ${AGENT_HOME} is expanded in
	// both, and a Command holding a slash is relative to the agent home.
	Command string
	Args    []string
	// Env is all the server gets besides a minimal base (agent.CoreEnv):
	// ${AGENT_HOME} is expanded at load, and values may name the engine's
	// variables as ${VAR}, expanded when the server starts, so that a key
	// reaches only the server it is meant for.
	Env map[string]string
	// URL and Headers reach a streamable HTTP server; header values expand
	// ${VAR} like Env.
	URL     string
	Headers map[string]string
	// Tools, when set, is the only tools of the server the model sees;
	// Exclude removes tools (both name the server's own tool names).
	Tools   []string
	Exclude []string
	// TimeoutMS bounds a call to one of its tools; 0: the agent's
	// tool_timeout_ms, else the default.
	TimeoutMS int
	Source    string // file:line:column of the entry
}

// MCPSeparator joins a server's name and its tool's name into the name the
// model sees: github__create_issue.
const MCPSeparator = "__"

var mcpKeys = []string{"name", "command", "args", "env", "url", "headers", "tools", "exclude", "timeout_ms"}

// collectMCP reads one file's mcp_servers list into merged: a later entry
// of a name (the importing file's) replaces an earlier one, as tools do.
func (l *loader) collectMCP(d *doc, fl field, merged *[]MCPServer) {
	seen := map[string]bool{}
	if fl.value != nil && fl.value.Kind == yaml.MappingNode {
		// Servers keyed by name, as Claude's mcpServers and Codex's
		// [mcp_servers.NAME] write them (mcpconfig.go).
		fl.value = mcpServerMap(d, fl.value)
	}
	for _, item := range d.list(fl, "mcp_servers") {
		before := len(l.problems)
		f := d.fields(item, "an mcp_servers entry", mcpKeys)
		if f == nil {
			continue
		}
		s := MCPServer{Name: d.str(f["name"], "mcp server name"), Source: d.pos(item)}
		switch {
		case s.Name == "" && len(l.problems) == before:
			d.problem(item, ErrInvalid, "for example  - name: github", "mcp_servers entry needs a name")
		case s.Name != "" && (!validToolName(s.Name) || strings.Contains(s.Name, MCPSeparator) || strings.HasSuffix(s.Name, "_")):
			d.problem(f["name"].value, ErrInvalid, "the model sees the tools as NAME__TOOL: use letters, digits, '-' and single '_'",
				"mcp server name %q must be letters, digits, '_' or '-', without %q", s.Name, MCPSeparator)
		case seen[s.Name]:
			d.problem(f["name"].value, ErrInvalid, "", "mcp server %q is listed twice in this file", s.Name)
		}
		seen[s.Name] = true
		if c := f["command"].value; c != nil && c.Kind == yaml.SequenceNode {
			d.problem(c, ErrInvalid, "command: PROGRAM names the program, args: [ARG, …] its arguments; for example  command: npx  and  args: [-y, some-server]",
				"mcp server command must be a string (the program), not a list")
		} else {
			s.Command = strings.ReplaceAll(d.str(f["command"], "mcp server command"), "${AGENT_HOME}", l.home)
		}
		if strings.Contains(s.Command, "/") && !strings.HasPrefix(s.Command, "/") {
			s.Command = l.home + "/" + strings.TrimPrefix(s.Command, "./")
		}
		s.Args = d.strList(f["args"], "mcp server args")
		for i, a := range s.Args {
			s.Args[i] = strings.ReplaceAll(a, "${AGENT_HOME}", l.home)
		}
		s.Env = d.strMap(f["env"], "mcp server env")
		for k, v := range s.Env {
			s.Env[k] = strings.ReplaceAll(v, "${AGENT_HOME}", l.home)
		}
		s.URL = d.str(f["url"], "mcp server url")
		s.Headers = d.strMap(f["headers"], "mcp server headers")
		s.Tools = d.strList(f["tools"], "mcp server tools")
		s.Exclude = d.strList(f["exclude"], "mcp server exclude")
		s.TimeoutMS = d.positive(f["timeout_ms"], "mcp server timeout_ms")
		switch {
		case s.Command == "" && s.URL == "" && len(l.problems) > before:
			// a command or url given but wrong: said above
		case s.Command == "" && s.URL == "":
			d.problem(item, ErrInvalid, "command: PROGRAM with args: [ARG, …] for a local (stdio) server, or url: for a remote (streamable HTTP) one",
				"mcp server %q needs a command or a url", s.Name)
		case s.Command != "" && s.URL != "":
			d.problem(item, ErrInvalid, "keep command: for a local server or url: for a remote one", "mcp server %q has both a command and a url", s.Name)
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
			d.problem(f["url"].value, ErrInvalid, "for example  url: https://example.com/mcp", "mcp server %q: url must start with http:// or https://", s.Name)
		case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
			d.problem(item, ErrInvalid, "args: and env: belong to a server Delta starts (command:)", "mcp server %q has a url and args or env", s.Name)
		case s.Command != "" && len(s.Headers) > 0:
			d.problem(f["headers"].key, ErrInvalid, "headers: belong to a remote server (url:)", "mcp server %q has a command and headers", s.Name)
		}
		if len(l.problems) > before {
			continue
		}
		replaced := false
		for i := range *merged {
			if (*merged)[i].Name == s.Name {
				(*merged)[i], replaced = s, true
			}
		}
		if !replaced {
			*merged = append(*merged, s)
		}
	}
}

// strMap decodes a mapping of strings to strings.
func (d *doc) strMap(f field, what string) map[string]string {
	if f.value == nil {
		return nil
	}
	if f.value.Kind != yaml.MappingNode {
		d.problem(f.value, ErrInvalid, "for example  "+what[strings.LastIndex(what, " ")+1:]+": {NAME: value}", "%s must be a mapping, not %s", what, kindName(f.value))
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(f.value.Content); i += 2 {
		k, v := f.value.Content[i], f.value.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			d.problem(v, ErrInvalid, "", "%s: %s must be a string, not %s", what, k.Value, kindName(v))
			continue
		}
		out[k.Value] = v.Value
	}
	return out
}
