package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// The MCP configs users already have key servers by name: Claude Code,
// Claude Desktop and Cursor write {"mcpServers": {NAME: {command, args,
// env} | {type, url, headers}}}, Codex writes TOML [mcp_servers.NAME]
// tables. Delta reads both, in agent.yaml's mcp_servers: and in a file
// given to --mcp-config, by rewriting a server keyed by name into the
// entry of Delta's list it means, so that one decoder checks them all.

// mcpServerMap rewrites a mapping of servers keyed by name into Delta's
// list form. Servers marked enabled: false are left out.
func mcpServerMap(d *doc, m *yaml.Node) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Line: m.Line, Column: m.Column}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.MappingNode {
			d.problem(v, ErrInvalid, `for example  "NAME": {"command": "npx", "args": ["-y", "some-server"]}`, "mcp server %q must be a mapping, not %s", k.Value, kindName(v))
			continue
		}
		entry := &yaml.Node{Kind: yaml.MappingNode, Line: v.Line, Column: v.Column}
		entry.Content = append(entry.Content, scalar("name", k), scalar(k.Value, k))
		if keep := foreignMCPEntry(d, k.Value, v, entry); keep {
			list.Content = append(list.Content, entry)
		}
	}
	return list
}

// foreignMCPEntry copies the keys of one server of another client's config
// into entry, translated to Delta's keys; false when the server is
// disabled (Codex's enabled = false).
func foreignMCPEntry(d *doc, name string, v, entry *yaml.Node) bool {
	env, headers := mappingOf(entry, "env"), mappingOf(entry, "headers")
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "type", "transport":
			checkMCPType(d, name, val)
		case "enabled":
			if val.Value == "false" {
				return false
			}
		case "startup_timeout_sec", "startup_timeout_ms", "disabled", "autoApprove", "alwaysAllow":
			// Delta's own start and approval rules apply instead.
		case "tool_timeout_sec":
			entry.Content = append(entry.Content, scalar("timeout_ms", k), secondsToMS(d, val))
		case "enabled_tools":
			entry.Content = append(entry.Content, scalar("tools", k), val)
		case "disabled_tools":
			entry.Content = append(entry.Content, scalar("exclude", k), val)
		case "http_headers":
			headers.Content = append(headers.Content, val.Content...)
		case "env_http_headers": // header: VAR
			for j := 0; j+1 < len(val.Content); j += 2 {
				headers.Content = append(headers.Content, val.Content[j], scalar("${"+val.Content[j+1].Value+"}", val.Content[j+1]))
			}
		case "bearer_token_env_var":
			headers.Content = append(headers.Content, scalar("Authorization", k), scalar("Bearer ${"+val.Value+"}", val))
		case "env_vars": // names passed from the engine's environment
			for _, n := range val.Content {
				env.Content = append(env.Content, scalar(n.Value, n), scalar("${"+n.Value+"}", n))
			}
		case "env":
			env.Content = append(env.Content, val.Content...)
		case "headers":
			headers.Content = append(headers.Content, val.Content...)
		default:
			entry.Content = append(entry.Content, k, val)
		}
	}
	for _, m := range []*yaml.Node{env, headers} {
		if len(m.Content) == 0 {
			dropKey(entry, m)
		}
	}
	return true
}

// checkMCPType accepts the transports Delta speaks: stdio and streamable
// HTTP. The old SSE transport is refused with what to do.
func checkMCPType(d *doc, name string, t *yaml.Node) {
	switch strings.ToLower(t.Value) {
	case "stdio", "http", "streamable-http", "streamable_http", "streamablehttp":
	case "sse":
		d.problem(t, ErrInvalid, "give the server's streamable HTTP address as url (most servers serve it at /mcp)", "mcp server %q uses the SSE transport, which Delta does not speak", name)
	default:
		d.problem(t, ErrInvalid, "use stdio (command:) or http (url:)", "mcp server %q: unknown type %q", name, t.Value)
	}
}

// secondsToMS turns a number of seconds into a node of milliseconds.
func secondsToMS(d *doc, n *yaml.Node) *yaml.Node {
	s, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || s <= 0 {
		d.problem(n, ErrInvalid, "", "tool_timeout_sec must be a positive number, not %q", n.Value)
		return scalar("1", n)
	}
	out := scalar(strconv.FormatInt(int64(s*1000), 10), n)
	out.Tag = "!!int"
	return out
}

// mappingOf appends key: {} to entry and returns the new mapping.
func mappingOf(entry *yaml.Node, key string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Line: entry.Line, Column: entry.Column}
	entry.Content = append(entry.Content, scalar(key, entry), m)
	return m
}

// dropKey removes the key whose value is v from mapping entry.
func dropKey(entry, v *yaml.Node) {
	for i := 1; i < len(entry.Content); i += 2 {
		if entry.Content[i] == v {
			entry.Content = append(entry.Content[:i-1], entry.Content[i+1:]...)
			return
		}
	}
}

// scalar is a string node placed where at is, for messages.
func scalar(value string, at *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Line: at.Line, Column: at.Column}
}

// ReadMCPConfig reads the MCP servers of a file given to --mcp-config: a
// Claude Code/Desktop or Cursor JSON file ({"mcpServers": {…}}), a Codex
// TOML file ([mcp_servers.NAME] tables), or YAML or JSON holding Delta's
// mcp_servers list (alone or under mcp_servers:). A relative command is
// resolved from the current directory. Problems are a *LoadError.
func ReadMCPConfig(path string) ([]MCPServer, error) {
	l := &loader{}
	l.cwd, _ = os.Getwd()
	l.home = l.cwd
	d := &doc{l: l, path: path, name: l.display(path)}
	root := l.mcpConfigRoot(d, path)
	if root != nil {
		var servers field
		if root.Kind == yaml.SequenceNode {
			servers.value = root
		} else if f := d.fields(root, "an MCP config file", nil); f != nil {
			servers = f["mcpServers"]
			if servers.value == nil {
				servers = f["mcp_servers"]
			}
			if servers.value == nil {
				d.problem(root, ErrInvalid, `Claude's form is {"mcpServers": {"NAME": {"command": …}}}, Codex's [mcp_servers.NAME]`, "no mcpServers or mcp_servers in the file")
			}
		}
		if servers.value != nil && servers.value.Kind == yaml.MappingNode {
			servers.value = mcpServerMap(d, servers.value)
		}
		l.collectMCP(d, servers, &l.mcp)
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	return l.mcp, nil
}

// mcpConfigRoot parses the file: TOML by its .toml extension, else YAML
// (of which JSON is a part). nil after reporting a problem.
func (l *loader) mcpConfigRoot(d *doc, path string) *yaml.Node {
	if !strings.EqualFold(filepath.Ext(path), ".toml") {
		_, root := l.readDoc(path)
		return root
	}
	var m map[string]any
	if _, err := toml.DecodeFile(path, &m); err != nil {
		line := 0
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line = pe.Position.Line
		}
		l.add(Problem{File: d.name, Line: line, Col: 1, Msg: fmt.Sprintf("invalid TOML: %v", err), Err: ErrInvalid})
		return nil
	}
	var buf bytes.Buffer
	if err := yaml.NewEncoder(&buf).Encode(m); err != nil {
		l.add(Problem{File: d.name, Msg: fmt.Sprintf("read TOML: %v", err), Err: ErrInvalid})
		return nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(buf.Bytes(), &n); err != nil || len(n.Content) == 0 {
		l.add(Problem{File: d.name, Msg: "read TOML: the file holds no table", Err: ErrInvalid})
		return nil
	}
	return n.Content[0]
}

// MergeMCPServers adds more servers to servers: one of a name already
// there replaces it, as a later mcp_servers entry does.
func MergeMCPServers(servers, more []MCPServer) []MCPServer {
	out := append([]MCPServer(nil), servers...)
	for _, s := range more {
		replaced := false
		for i := range out {
			if out[i].Name == s.Name {
				out[i], replaced = s, true
			}
		}
		if !replaced {
			out = append(out, s)
		}
	}
	return out
}
