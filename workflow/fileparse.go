package workflow

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/workflow/board"
	"gopkg.in/yaml.v3"
)

type parser struct {
	y *agent.YAMLFile
	f *File
}

func (p *parser) text(fl agent.YAMLField, what string) Text {
	return Text{S: p.y.Str(fl, what), node: fl.Value}
}

func (p *parser) parse(root *yaml.Node) {
	f := p.f
	fs := p.y.Fields(root, "the workflow file", fileKeys)
	if fs == nil {
		return
	}
	f.Name = p.y.Str(fs["name"], "name")
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
	}
	f.Description = p.y.Str(fs["description"], "description")
	f.Queue = p.queue(fs["queue"], "queue")
	f.WorkspaceSync = p.workspaceSync(fs["workspace_sync"], "workspace_sync")
	p.agents(fs["agents"])
	p.setup(fs["setup"])
	if k, ok := fs["kickoff"]; ok {
		f.Kickoff = p.text(k, "kickoff")
	}
	p.context(fs["context"], root)
	p.checkVariables()
}

func (p *parser) agents(fl agent.YAMLField) {
	if fl.Value == nil {
		p.y.Problem(nil, agent.ErrInvalid, "add an agents: mapping, e.g.\n  agents:\n    reviewer:\n      model: openai/gpt-4o-mini\n      system_prompt: You review code.", "the workflow has no agents")
		return
	}
	if fl.Value.Kind != yaml.MappingNode {
		p.y.Problem(fl.Value, agent.ErrInvalid, "agents is a mapping of agent names to their definitions", "agents must be a mapping, not %s", agent.KindName(fl.Value))
		return
	}
	if len(fl.Value.Content) == 0 {
		p.y.Problem(fl.Value, agent.ErrInvalid, "add at least one agent, e.g.\n  agents:\n    reviewer:\n      model: openai/gpt-4o-mini\n      system_prompt: You review code.", "agents is empty")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(fl.Value.Content); i += 2 {
		k, v := fl.Value.Content[i], fl.Value.Content[i+1]
		name := k.Value
		switch {
		case seen[name]:
			p.y.Problem(k, agent.ErrInvalid, "", "agent %q is defined twice", name)
			continue
		case !agentName().MatchString(name):
			p.y.Problem(k, agent.ErrInvalid, "agents are @mentioned by name: start with a letter, then letters, digits, - or _", "invalid agent name %q", name)
			continue
		case contains(reservedAuthors, strings.ToLower(name)):
			p.y.Problem(k, agent.ErrInvalid, "choose another name", "%q is reserved for channel messages that come from no agent", name)
			continue
		}
		seen[name] = true
		if a := p.agent(name, v); a != nil {
			p.f.Agents = append(p.f.Agents, a)
		}
	}
}

func (p *parser) agent(name string, n *yaml.Node) *AgentDef {
	what := "agent " + name
	fs := p.y.Fields(n, what, agentKeys)
	if fs == nil {
		return nil
	}
	a := &AgentDef{Name: name, node: n, Backend: BackendDelta}
	var err error
	if b, ok := fs["backend"]; ok {
		a.Backend = p.y.Str(b, what+": backend")
		if a.Backend != BackendDelta && a.Backend != BackendCommand {
			p.y.Problem(b.Value, agent.ErrInvalid, "backend: delta (an ordinary Delta run, the default) or backend: command (any CLI that reads its prompt on stdin)", "%s: unknown backend %q", what, a.Backend)
			return nil
		}
	}
	a.MaxIterations = p.y.Positive(fs["max_iterations"], what+": max_iterations")
	p.placement(a, fs, what)
	if sp, ok := fs["system_prompt"]; ok {
		a.SystemPrompt, a.PromptFile = p.prompt(sp, what)
	}
	if c, ok := fs["command"]; ok {
		switch c.Value.Kind {
		case yaml.SequenceNode:
			for _, item := range c.Value.Content {
				a.Command.Argv = append(a.Command.Argv, p.text(agent.YAMLField{Value: item}, what+": command"))
			}
		default:
			a.Command.Shell = p.text(c, what+": command")
		}
	}
	if d, ok := fs["agent"]; ok {
		for _, k := range []string{"model", "system_prompt", "tools", "max_iterations"} {
			if x, set := fs[k]; set {
				p.y.Problem(x.Key, agent.ErrInvalid, "a full agent directory has its own agent.yaml: set it there, or define the agent inline without agent:", "%s: %s cannot be combined with agent:", what, k)
			}
		}
		if dir := p.y.Str(d, what+": agent"); dir != "" {
			a.Dir = p.path(d.Value, dir)
			if fi, err := os.Stat(a.Dir); err != nil || !fi.IsDir() {
				p.y.Problem(d.Value, agent.ErrMissingFile, "agent: names a Delta agent directory (holding agent.yaml), relative to the workflow file", "%s: agent directory %s not found", what, dir)
			}
		}
	}
	switch a.Backend {
	case BackendCommand:
		if a.Command.Empty() {
			p.y.Problem(n, agent.ErrInvalid, `for example  command: claude -p --mcp-config "$DELTA_WORKFLOW_MCP_CONFIG"`, "%s: backend command needs command:", what)
		}
		for _, k := range []string{"model", "tools", "agent", "max_iterations"} {
			if x, set := fs[k]; set {
				p.y.Problem(x.Key, agent.ErrInvalid, "the command backend runs command: with the prompt on stdin; choose the model in that command's own flags", "%s: %s is not used by backend command", what, k)
			}
		}

	default:
		if !a.Command.Empty() {
			p.y.Problem(fs["command"].Key, agent.ErrInvalid, "add backend: command to run this command as the agent", "%s: command: is only for backend: command", what)
		}
		if a.Dir == "" {
			a.Model = p.y.Str(fs["model"], what+": model")
			if _, set := fs["model"]; !set {
				p.y.Problem(n, agent.ErrInvalid, "for example  model: openai/gpt-4o-mini (or anthropic/claude-sonnet-4-5, or scripted:script.yaml offline), or agent: ./dir for a full Delta agent", "%s needs a model (or agent: ./dir)", what)
			} else if a.LLM, err = ParseModel(a.Model, p.f.Dir); err != nil {
				p.y.Problem(fs["model"].Value, agent.ErrInvalid, modelHint, "%s: %v", what, err)
			} else if a.LLM.Script != "" {
				if _, err := os.Stat(a.LLM.Script); err != nil {
					p.y.Problem(fs["model"].Value, agent.ErrMissingFile, "scripted:FILE is relative to the workflow file", "%s: model script %s not found", what, strings.TrimPrefix(a.Model, "scripted:"))
				}
			}
			for _, t := range p.y.List(fs["tools"], what+": tools") {
				if t.Kind != yaml.MappingNode {
					p.y.Problem(t, agent.ErrInvalid, "a tool is an agent.yaml tool definition, e.g. {name: list_files, exec: \"ls -la ${path}\"} (see man 5 delta-agent); the workflow's context tools are always there", "%s: a tool must be a mapping, not %s", what, agent.KindName(t))
					continue
				}
				a.Tools = append(a.Tools, t)
			}
		}
	}
	return a
}

// prompt reads system_prompt: a file when the value is one line naming an
// existing file (or ending in .md or .txt), else the prompt itself.
func (p *parser) prompt(fl agent.YAMLField, what string) (Text, string) {
	s := p.y.Str(fl, what+": system_prompt")
	if s == "" || strings.Contains(strings.TrimSpace(s), "\n") {
		return Text{S: s, node: fl.Value}, ""
	}
	path := p.path(fl.Value, strings.TrimSpace(s))
	data, err := os.ReadFile(path)
	if err == nil {
		// Positions inside a prompt file are not tracked: a bad reference
		// there is reported at system_prompt:, naming the file.
		return Text{S: string(data), node: fl.Value}, path
	}
	ext := strings.ToLower(filepath.Ext(s))
	if ext == ".md" || ext == ".txt" {
		p.y.Problem(fl.Value, agent.ErrMissingFile, "system_prompt is the prompt itself or a file relative to the workflow file", "%s: system prompt file %s not found", what, s)
	}
	return Text{S: s, node: fl.Value}, ""
}

// path resolves a path of the file against its directory.
func (p *parser) path(n *yaml.Node, s string) string {
	if strings.HasPrefix(s, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			s = filepath.Join(home, s[2:])
		}
	}
	if filepath.IsAbs(s) {
		return filepath.Clean(s)
	}
	return filepath.Join(p.f.Dir, s)
}

func (p *parser) setup(fl agent.YAMLField) {
	seen := map[string]*yaml.Node{}
	for _, item := range p.y.List(fl, "setup") {
		fs := p.y.Fields(item, "a setup step", setupKeys)
		if fs == nil {
			continue
		}
		t := SetupTask{Shell: p.text(fs["shell"], "setup: shell"), As: p.y.Str(fs["as"], "setup: as")}
		if strings.TrimSpace(t.Shell.S) == "" {
			p.y.Problem(item, agent.ErrInvalid, "for example  - shell: git diff HEAD~1\n    as: diff", "a setup step needs shell:")
			continue
		}
		if t.As != "" {
			at := fs["as"].Value
			switch {
			case !varName().MatchString(t.As):
				p.y.Problem(at, agent.ErrInvalid, "a variable name is letters, digits and _, not starting with a digit", "invalid variable name %q", t.As)
			case contains(reservedRoots, t.As):
				p.y.Problem(at, agent.ErrInvalid, "choose another name", "%q is reserved (${{ %s.… }})", t.As, t.As)
			case seen[t.As] != nil:
				p.y.Problem(at, agent.ErrInvalid, "", "variable %q is set twice (first at line %d)", t.As, seen[t.As].Line)
			default:
				seen[t.As] = at
			}
		}
		p.f.Setup = append(p.f.Setup, t)
	}
}

func (p *parser) context(fl agent.YAMLField, root *yaml.Node) {
	c := &p.f.Context
	c.Enabled, c.Provider = true, ProviderFile
	c.Dir = Text{S: DefaultDir, node: fl.Value}
	c.Channel = Text{S: DefaultChannel, node: fl.Value}
	c.Document = Text{S: DefaultDocument, node: fl.Value}
	v := fl.Value
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		c.Enabled = v.Value == "true"
		return
	}
	fs := p.y.Fields(v, "context", contextKeys)
	if fs == nil {
		return
	}
	if pr, ok := fs["provider"]; ok {
		c.Provider = p.y.Str(pr, "context: provider")
		if c.Provider != ProviderFile && c.Provider != ProviderMemory {
			p.y.Problem(pr.Value, agent.ErrInvalid, "provider: file (files under the instance directory, the default) or provider: memory (in the runner's memory, for tests)", "unknown context provider %q", c.Provider)
		}
	}
	if o, ok := fs["documentOwner"]; ok {
		p.owner(o, "context: documentOwner")
	}
	cfg, ok := fs["config"]
	if !ok {
		return
	}
	if c.Provider == ProviderMemory {
		p.y.Problem(cfg.Key, agent.ErrInvalid, "remove config:, or use provider: file", "context: config: is for the file provider")
		return
	}
	cf := p.y.Fields(cfg.Value, "context: config", configKeys)
	if cf == nil {
		return
	}
	if d, ok := cf["dir"]; ok {
		c.Dir = p.text(d, "context: config: dir")
	}
	if o, ok := cf["documentOwner"]; ok {
		// Also accepted here, as one of the spec's examples writes it;
		// it is the same setting as context: documentOwner.
		if _, both := fs["documentOwner"]; both {
			p.y.Problem(o.Key, agent.ErrInvalid, "keep one: context: documentOwner", "documentOwner is set twice (context: documentOwner and context: config: documentOwner)")
		} else {
			p.owner(o, "context: config: documentOwner")
		}
	}
	seen := map[string]int{}
	for _, d := range p.y.List(cf["documents"], "context: config: documents") {
		t := p.text(agent.YAMLField{Value: d}, "context: config: documents")
		if d.Kind != yaml.ScalarNode {
			continue
		}
		if err := checkDocPath(t.S); err != nil {
			p.y.Problem(d, agent.ErrInvalid, "a document is a path relative to the documents folder, e.g. goals.md or findings/auth.md", "context: config: documents: %v", err)
			continue
		}
		if l, dup := seen[t.S]; dup {
			p.y.Problem(d, agent.ErrInvalid, "", "context: config: documents: %s is listed twice (first at line %d)", t.S, l)
			continue
		}
		seen[t.S] = d.Line
		c.Documents = append(c.Documents, t)
	}
	for key, dst := range map[string]*Text{"channel": &c.Channel, "document": &c.Document} {
		if x, ok := cf[key]; ok {
			*dst = p.text(x, "context: config: "+key)
			if s := dst.S; s == "" || filepath.IsAbs(s) || strings.Contains(s, "..") {
				p.y.Problem(x.Value, agent.ErrInvalid, "a file name inside the context directory, e.g. "+key+": "+map[string]string{"channel": DefaultChannel, "document": DefaultDocument}[key], "context: config: %s must be a relative file name inside the context directory, not %q", key, s)
			}
		}
	}
}

// owner reads a documentOwner: one of the agents.
func (p *parser) owner(o agent.YAMLField, what string) {
	c := &p.f.Context
	c.DocumentOwner = p.y.Str(o, what)
	if c.DocumentOwner != "" && p.f.Agent(c.DocumentOwner) == nil {
		p.y.Problem(o.Value, agent.ErrInvalid, "documentOwner names one of the agents: "+strings.Join(p.f.AgentNames(), ", "), "documentOwner %q is not an agent of the workflow", c.DocumentOwner)
	}
}

// checkDocPath checks a document path of config: documents the way the
// shared context checks the paths agents give (${{ }} references aside).
func checkDocPath(s string) error {
	if strings.Contains(s, "${{") {
		return nil
	}
	return board.CheckDocPath(s)
}

// placement reads where an agent runs: its queue: and workspace_sync:.
func (p *parser) placement(a *AgentDef, fs map[string]agent.YAMLField, what string) {
	a.Queue = p.queue(fs["queue"], what+": queue")
	a.WorkspaceSync = p.workspaceSync(fs["workspace_sync"], what+": workspace_sync")
	if x, set := fs["queue"]; set && a.Backend == BackendCommand {
		p.y.Problem(x.Key, agent.ErrInvalid, "a command agent runs on the controller's host; only Delta agents (backend: delta) go on a cluster queue", "%s: queue: is not for backend command", what)
	}
}

// queue reads a queue: value, a cluster queue name.
func (p *parser) queue(fl agent.YAMLField, what string) string {
	q := p.y.Str(fl, what)
	if q != "" && !queueName().MatchString(q) {
		p.y.Problem(fl.Value, agent.ErrInvalid, "the queue a delta worker serves (delta worker --queue NAME): letters, digits, '.', '_' and '-', with no empty part between dots", "%s: invalid queue name %q", what, q)
		return ""
	}
	return q
}

// workspaceSync reads a workspace_sync: value.
func (p *parser) workspaceSync(fl agent.YAMLField, what string) string {
	v := p.y.Str(fl, what)
	if v != "" && !contains(syncPolicies, v) {
		p.y.Problem(fl.Value, agent.ErrInvalid, "workspace_sync: none (the default), git or shared", "%s: unknown policy %q", what, v)
		return ""
	}
	return v
}
