package agent

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// DefaultSubagentDepth is subagents.max_depth when agent.yaml does not set
// it: the run's children may not spawn agents of their own.
const DefaultSubagentDepth = 1

// Subagents is agent.yaml's subagents block: whether the model gets the
// spawn_agent, send_input, wait and close_agent tools, how deep spawned
// runs may nest, and which agent directories it may start.
type Subagents struct {
	Enabled bool
	// MaxDepth is how many levels of runs may be spawned below a
	// top-level run (DefaultSubagentDepth when not set).
	MaxDepth int
	// Agents are the agent directories spawn_agent may name, in the order
	// written; the first is the default.
	Agents []SubagentDir
}

// SubagentDir is one entry of subagents.agents.
type SubagentDir struct {
	Name string // as written in agent.yaml, the name the model gives
	Path string // absolute, symlinks resolved
}

var subagentKeys = []string{"enabled", "max_depth", "agents"}

// decodeSubagents reads the subagents block: a mapping, or true/false as
// a shorthand for enabled.
func (l *loader) decodeSubagents(d *doc, fs field) Subagents {
	s := Subagents{MaxDepth: DefaultSubagentDepth}
	if fs.value == nil || (fs.value.Kind == yaml.ScalarNode && fs.value.Tag == "!!null") {
		return s
	}
	var f map[string]field
	if fs.value.Kind == yaml.ScalarNode {
		b := d.boolPtr(fs, "subagents")
		if b == nil {
			return s
		}
		s.Enabled = *b
	} else {
		if f = d.fields(fs.value, "subagents", subagentKeys); f == nil {
			return s
		}
		if b := d.boolPtr(f["enabled"], "subagents.enabled"); b != nil {
			s.Enabled = *b
		}
		if n := d.positive(f["max_depth"], "subagents.max_depth"); n > 0 {
			s.MaxDepth = n
		}
	}
	if f["agents"].value == nil {
		s.Agents = []SubagentDir{{Name: ".", Path: l.home}}
		return s
	}
	names := d.strList(f["agents"], "subagents.agents")
	if len(names) == 0 && f["agents"].value.Kind == yaml.SequenceNode {
		d.problem(f["agents"].value, ErrInvalid, `list the agent directories the model may start, e.g. agents: [".", "agents/reviewer"] (or remove the key: this agent only)`,
			"subagents.agents is empty")
	}
	seen := map[string]bool{}
	var nodes []*yaml.Node // the items strList kept, for positions
	for _, n := range f["agents"].value.Content {
		if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
			nodes = append(nodes, n)
		}
	}
	for i, name := range names {
		n := nodes[i]
		if seen[name] {
			d.problem(n, ErrInvalid, "", "subagents.agents lists %q twice", name)
			continue
		}
		seen[name] = true
		if path := l.subagentDir(d, n, name); path != "" {
			s.Agents = append(s.Agents, SubagentDir{Name: name, Path: path})
		}
	}
	return s
}

// subagentDir resolves one subagents.agents entry (relative to the agent
// home) and checks that it is an agent directory; it reports a problem
// and returns "" when it is not.
func (l *loader) subagentDir(d *doc, n *yaml.Node, name string) string {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.home, p)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		d.problem(n, ErrMissingFile, "give an agent directory, relative to "+l.display(l.home), "subagents.agents: %q not found (looked for %s)", name, l.display(p))
		return ""
	}
	if fi, err := os.Stat(resolved); err != nil || !fi.IsDir() {
		d.problem(n, ErrInvalid, "give an agent directory (holding agent.yaml), not a file", "subagents.agents: %q is not a directory", name)
		return ""
	}
	if !exists(filepath.Join(resolved, AgentFile)) && !exists(filepath.Join(resolved, LegacyFile)) {
		d.problem(n, ErrNoConfig, "create one with: delta init "+name, "subagents.agents: %q holds no agent.yaml", name)
		return ""
	}
	return resolved
}

// Subagent returns the entry of subagents.agents the model names ("" is
// the first), and whether there is one.
func (s Subagents) Subagent(name string) (SubagentDir, bool) {
	if len(s.Agents) == 0 {
		return SubagentDir{}, false
	}
	if name == "" {
		return s.Agents[0], true
	}
	clean := filepath.Clean(name)
	for _, a := range s.Agents {
		if a.Name == name || filepath.Clean(a.Name) == clean {
			return a, true
		}
	}
	return SubagentDir{}, false
}
