package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/agent"
	"gopkg.in/yaml.v3"
)

// reference is one ${{ name }} in a text: the name, and where the
// reference starts and ends in the text.
type reference struct {
	name       string
	start, end int
}

// refPattern matches ${{ name }}; names are dotted words (env.HOME,
// workflow.name, diff).
var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{\{\s*([^{}]*?)\s*\}\}`) })

// reservedRoots are the first words of the reserved variables; a setup
// step's as: cannot take them.
var reservedRoots = []string{"env", "workflow", "context", "agent"}

// references lists the ${{ }} references of s.
func references(s string) []reference {
	var out []reference
	for _, m := range refPattern().FindAllStringSubmatchIndex(s, -1) {
		out = append(out, reference{name: s[m[2]:m[3]], start: m[0], end: m[1]})
	}
	return out
}

// Vars are the values ${{ name }} takes.
type Vars struct {
	// Workflow and Instance are workflow.name and workflow.instance.
	Workflow, Instance string
	// Channel and Document are context.channel and context.document: the
	// files' paths ("" without a shared context).
	Channel, Document string
	// Setup holds the setup steps' variables (as:).
	Setup map[string]string
	// Agent holds agent.name, agent.mcp_config and agent.system_prompt_file,
	// for an agent's command.
	Agent map[string]string
	// Env looks up env.NAME (nil: os.LookupEnv).
	Env func(string) (string, bool)
}

// lookup resolves one name.
func (v Vars) lookup(name string) (string, error) {
	if rest, ok := strings.CutPrefix(name, "env."); ok {
		env := v.Env
		if env == nil {
			env = os.LookupEnv
		}
		val, ok := env(rest)
		if !ok {
			return "", fmt.Errorf("${{ %s }}: environment variable %s is not set", name, rest)
		}
		return val, nil
	}
	switch name {
	case "workflow.name":
		return v.Workflow, nil
	case "workflow.instance":
		return v.Instance, nil
	case "context.channel":
		return v.Channel, nil
	case "context.document":
		return v.Document, nil
	}
	if rest, ok := strings.CutPrefix(name, "agent."); ok {
		if val, ok := v.Agent[rest]; ok {
			return val, nil
		}
	} else if val, ok := v.Setup[name]; ok {
		return val, nil
	}
	return "", fmt.Errorf("%w ${{ %s }}", ErrUnknownVariable, name)
}

// Expand replaces the text's ${{ name }} references by their values. Load
// has checked every name, so only an unset environment variable (or Vars
// lacking a setup variable) fails here.
func (t Text) Expand(v Vars) (string, error) {
	refs := references(t.S)
	if len(refs) == 0 {
		return t.S, nil
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		val, err := v.lookup(r.name)
		if err != nil {
			return "", err
		}
		b.WriteString(t.S[last:r.start])
		b.WriteString(val)
		last = r.end
	}
	b.WriteString(t.S[last:])
	return b.String(), nil
}

// scope is the set of names a text may refer to.
type scope struct {
	names []string // besides env.*
}

// checkVariables reports every reference to a name that is not in scope
// where it is used: setup steps see the variables of the steps before
// them, the kickoff and the prompts all of them, an agent's command also
// agent.*, and the context's paths only workflow.* and env.*.
func (p *parser) checkVariables() {
	f := p.f
	base := []string{"workflow.name", "workflow.instance"}
	withContext := base
	if f.Context.Enabled {
		withContext = append(slices.Clone(base), "context.channel", "context.document")
	}
	vars := slices.Clone(withContext)
	for _, s := range f.Setup {
		p.checkText(s.Shell, "setup", scope{vars}, "")
		if s.As != "" {
			vars = append(vars, s.As)
		}
	}
	all := scope{vars}
	p.checkText(f.Kickoff, "kickoff", all, "")
	for _, a := range f.Agents {
		p.checkText(a.SystemPrompt, "agent "+a.Name+": system_prompt", all, a.PromptFile)
		cmd := scope{append(slices.Clone(vars), "agent.name", "agent.mcp_config", "agent.system_prompt_file")}
		p.checkText(a.Command.Shell, "agent "+a.Name+": command", cmd, "")
		for _, t := range a.Command.Argv {
			p.checkText(t, "agent "+a.Name+": command", cmd, "")
		}
	}
	c := f.Context
	for _, what := range []string{"dir", "channel", "document"} {
		t := map[string]Text{"dir": c.Dir, "channel": c.Channel, "document": c.Document}[what]
		if t.node != nil {
			p.checkText(t, "context: config: "+what, scope{base}, "")
		}
	}
	for _, t := range c.Documents {
		p.checkText(t, "context: config: documents", scope{base}, "")
	}
}

// checkText reports the references of t outside sc at their position
// (file names the prompt file t was read from, if any).
func (p *parser) checkText(t Text, what string, sc scope, file string) {
	for _, r := range references(t.S) {
		if strings.HasPrefix(r.name, "env.") && len(r.name) > 4 {
			continue
		}
		if slices.Contains(sc.names, r.name) {
			continue
		}
		msg := fmt.Sprintf("unknown variable ${{ %s }} in %s", r.name, what)
		if file != "" {
			msg = fmt.Sprintf("unknown variable ${{ %s }} in %s (file %s)", r.name, what, file)
		}
		if slices.Contains(sc.names, "workflow."+r.name) {
			msg += fmt.Sprintf(" (did you mean %q?)", "workflow."+r.name)
		} else if s := agent.Suggest(r.name, sc.names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		hint := "variables here: env.NAME, " + strings.Join(sc.names, ", ")
		if strings.HasPrefix(r.name, "context.") && !p.f.Context.Enabled {
			hint = "context.channel and context.document exist only with a shared context (remove context: false)"
		}
		p.y.Problem(p.position(t, r.start, file != ""), ErrUnknownVariable, hint, "%s", msg)
	}
}

// position returns a node placed where offset off of t is in the file.
func (p *parser) position(t Text, off int, fromFile bool) *yaml.Node {
	n := t.node
	if n == nil {
		return nil
	}
	if fromFile || n.Kind != yaml.ScalarNode {
		return n
	}
	before := t.S[:off]
	nl := strings.Count(before, "\n")
	col := off - (strings.LastIndexByte(before, '\n') + 1)
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return &yaml.Node{Line: n.Line + 1 + nl, Column: p.blockIndent(n.Line+1, t.S) + col + 1}
	case nl > 0:
		return n
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return &yaml.Node{Line: n.Line, Column: n.Column + 1 + col}
	}
	return &yaml.Node{Line: n.Line, Column: n.Column + col}
}

// blockIndent is the indentation of a block scalar whose content starts at
// line first (1-based) of the file and reads s: the first non-blank line's
// leading spaces in the file, less those it keeps in s.
func (p *parser) blockIndent(first int, s string) int {
	lines := bytes.Split(p.f.src, []byte("\n"))
	for i, content := range strings.Split(s, "\n") {
		if strings.TrimSpace(content) == "" {
			continue
		}
		n := first + i
		if n < 1 || n > len(lines) {
			return 0
		}
		l := lines[n-1]
		kept := len(content) - len(strings.TrimLeft(content, " "))
		return len(l) - len(bytes.TrimLeft(l, " ")) - kept
	}
	return 0
}

// ErrUnsetEnv: ${{ env.NAME }} names a variable that is not set.
var ErrUnsetEnv = errors.New("environment variable not set")

// CheckEnv reports, as a *agent.LoadError with file:line:col, every
// ${{ env.NAME }} of the file whose variable lookup (nil: os.LookupEnv)
// does not have: the runner checks them before it does anything, rather
// than failing after the setup ran or when an agent's command starts.
func (f *File) CheckEnv(lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	p := &parser{f: f}
	var problems []agent.Problem
	seen := map[string]bool{}
	for _, nt := range f.texts() {
		for _, r := range references(nt.t.S) {
			name, ok := strings.CutPrefix(r.name, "env.")
			if !ok || name == "" {
				continue
			}
			if _, set := lookup(name); set {
				continue
			}
			pr := agent.Problem{File: f.Display, Err: ErrUnsetEnv,
				Msg:  fmt.Sprintf("environment variable %s is not set (${{ %s }} in %s)", name, r.name, nt.what),
				Hint: "export the variables the workflow file uses before running it, or remove the references"}
			if n := p.position(nt.t, r.start, nt.fromFile); n != nil {
				pr.Line, pr.Col = n.Line, n.Column
			}
			if key := pr.String(); !seen[key] {
				seen[key] = true
				problems = append(problems, pr)
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.SortStableFunc(problems, func(a, b agent.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return &agent.LoadError{Problems: problems}
}

// namedText is one text of the file that may hold references.
type namedText struct {
	t        Text
	what     string
	fromFile bool
}

// texts lists the file's texts that may hold ${{ }} references.
func (f *File) texts() []namedText {
	var out []namedText
	for _, s := range f.Setup {
		out = append(out, namedText{t: s.Shell, what: "setup"})
	}
	out = append(out, namedText{t: f.Kickoff, what: "kickoff"})
	for _, a := range f.Agents {
		out = append(out, namedText{t: a.SystemPrompt, what: "agent " + a.Name + ": system_prompt", fromFile: a.PromptFile != ""})
		out = append(out, namedText{t: a.Command.Shell, what: "agent " + a.Name + ": command"})
		for _, t := range a.Command.Argv {
			out = append(out, namedText{t: t, what: "agent " + a.Name + ": command"})
		}
	}
	c := f.Context
	out = append(out, namedText{t: c.Dir, what: "context: config: dir"}, namedText{t: c.Channel, what: "context: config: channel"}, namedText{t: c.Document, what: "context: config: document"})
	for _, t := range c.Documents {
		out = append(out, namedText{t: t, what: "context: config: documents"})
	}
	return out
}
