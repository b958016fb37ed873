package agent

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/tool"
	"gopkg.in/yaml.v3"
)

// Keys of tool definitions, their parameters and imported files.
var (
	toolKeys       = []string{"name", "description", "command", "parameters", "exec", "shell", "stdin", "timeout_ms", "output"}
	paramKeys      = []string{"name", "type", "description", "required", "inject_as", "option_name", "default", "position", "raw"}
	importFileKeys = []string{"tools", "imports", "mcp_servers"}
	// ignoredImportKeys are agent-level keys that delta-engine 1.10's
	// imported modules carried; they are skipped with a warning so such
	// modules load unchanged.
	ignoredImportKeys = []string{"name", "version", "description", "llm", "max_iterations"}
)

// loadTools returns the tools of the main config: imports in order, then
// the local tools; a later definition of a name replaces the earlier one
// (seeds/000 §2.7.4, last write wins, local tools win).
func (l *loader) loadTools(d *doc, f map[string]field) []tool.Tool {
	var merged []tool.Tool
	l.collectTools(d, f, []string{d.path}, &merged)
	return merged
}

// collectTools appends the tools of one file (its imports first) to merged.
func (l *loader) collectTools(d *doc, f map[string]field, chain []string, merged *[]tool.Tool) {
	for _, item := range d.list(f["imports"], "imports") {
		if item.Kind != yaml.ScalarNode || item.Value == "" {
			d.problem(item, ErrInvalid, "", "imports must be a list of file paths")
			continue
		}
		path := l.resolveInside(d, item, filepath.Dir(d.path), item.Value, "import")
		if path == "" {
			continue
		}
		if i := indexOf(chain, path); i >= 0 {
			names := make([]string, 0, len(chain)-i+1)
			for _, c := range append(chain[i:], path) {
				names = append(names, l.homeRel(c))
			}
			d.problem(item, ErrImportCycle, "remove one of the imports that lead back", "import cycle: %s", strings.Join(names, " → "))
			continue
		}
		sub, root := l.readDoc(path)
		if root == nil {
			continue
		}
		sf := sub.fields(root, "an imported tools file", append(importFileKeys, ignoredImportKeys...))
		l.warnIgnored(sub, sf, ignoredImportKeys)
		l.collectTools(sub, sf, append(chain[:len(chain):len(chain)], path), merged)
	}
	names := map[string]*yaml.Node{}
	for _, item := range d.list(f["tools"], "tools") {
		t, ok := l.decodeTool(d, item)
		if !ok {
			continue
		}
		if first, dup := names[t.Name]; dup {
			d.problem(item, ErrDuplicateTool, "rename one of them; to replace an imported tool, define it in the importing file", "tool %q is defined twice in this file (first at line %d)", t.Name, first.Line)
			continue
		}
		names[t.Name] = item
		mergeTool(merged, t)
	}
	l.collectMCP(d, f["mcp_servers"], &l.mcp)
}

// warnIgnored warns once per file about agent-level keys an imported file
// carries: only its tools and imports are used.
func (l *loader) warnIgnored(d *doc, f map[string]field, keys []string) {
	for _, k := range keys {
		if fl, ok := f[k]; ok {
			l.warn("[WARNING] %s: %q in an imported tools file is ignored (only tools:, imports: and mcp_servers: are read from it)", d.pos(fl.key), k)
		}
	}
}

// mergeTool replaces a tool of the same name in place, or appends.
func mergeTool(merged *[]tool.Tool, t tool.Tool) {
	for i := range *merged {
		if (*merged)[i].Name == t.Name {
			(*merged)[i] = t
			return
		}
	}
	*merged = append(*merged, t)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// homeRel shows a path relative to the agent home.
func (l *loader) homeRel(p string) string {
	if rel, err := filepath.Rel(l.home, p); err == nil {
		return rel
	}
	return p
}

// decodeTool reads and expands one tool definition.
func (l *loader) decodeTool(d *doc, item *yaml.Node) (tool.Tool, bool) {
	n := len(l.problems)
	f := d.fields(item, "a tool definition", toolKeys)
	if f == nil {
		return tool.Tool{}, false
	}
	_, hasExec := f["exec"]
	_, hasShell := f["shell"]
	def := tool.Definition{
		HasExec:     hasExec,
		HasShell:    hasShell,
		Name:        d.str(f["name"], "tool name"),
		Description: d.str(f["description"], "tool description"),
		Exec:        d.str(f["exec"], "exec"),
		Shell:       d.str(f["shell"], "shell"),
		Stdin:       d.str(f["stdin"], "stdin"),
		TimeoutMS:   d.integer(f["timeout_ms"], "timeout_ms"),
		Output:      decodeOutput(d, f["output"], "tool output"),
		Source:      d.pos(item),
		Vars:        map[string]string{"AGENT_HOME": l.home},
	}
	if c, ok := f["command"]; ok {
		def.HasCommand = true
		def.Command = d.strList(c, "command")
	}
	if def.Name == "" {
		if len(l.problems) == n { // not when the entry's mistake is already reported
			d.problem(item, ErrInvalid, "", "tool needs a name")
		}
		return tool.Tool{}, false
	}
	if !validToolName(def.Name) {
		d.problem(f["name"].value, ErrInvalid, "", "tool name %q must be letters, digits, '_' or '-' (at most 64), as model APIs require", def.Name)
	}
	if def.Name == tool.AskHumanName {
		d.problem(f["name"].value, ErrInvalid, "", "%q is the built-in tool; choose another name", def.Name)
	}
	paramNodes := map[string]*yaml.Node{}
	for _, pn := range d.list(f["parameters"], "parameters") {
		pd, ok := decodeParam(d, pn)
		if ok {
			def.Parameters = append(def.Parameters, pd)
			if _, dup := paramNodes[pd.Name]; !dup {
				paramNodes[pd.Name] = pn
			}
		}
	}
	if len(l.problems) > n {
		return tool.Tool{}, false
	}
	t, err := tool.Expand(def)
	if err != nil {
		for _, e := range splitErrors(err) {
			at := item
			var pe *tool.ParamError
			switch {
			case errors.As(e, &pe) && paramNodes[pe.Param] != nil:
				at = paramNodes[pe.Param]
			case errors.Is(e, tool.ErrMode):
			case errors.Is(e, tool.ErrEmptyTemplate) && def.Exec == "" && f["exec"].value != nil:
				at = f["exec"].value
			case errors.Is(e, tool.ErrEmptyTemplate) && f["shell"].value != nil:
				at = f["shell"].value
			case f["exec"].value != nil:
				at = f["exec"].value
			case f["shell"].value != nil:
				at = f["shell"].value
			}
			d.problem(at, errors.Join(ErrInvalid, e), toolHint(e), "tool %q: %v", def.Name, e)
		}
		return tool.Tool{}, false
	}
	return t, true
}

// splitErrors lists the problems Expand joined together.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// toolHint suggests a fix for a tool definition error.
func toolHint(err error) string {
	switch {
	case errors.Is(err, tool.ErrMetachar):
		return "exec: runs one program without a shell; write shell: \"…\" to use pipes, redirects or expansions (values stay quoted)"
	case errors.Is(err, tool.ErrRawInExec):
		return "${name:raw} only exists in shell: mode, where the shell splits and globs the value"
	case errors.Is(err, tool.ErrOverride):
		return "parameters: may add description, default and required to a placeholder, but inject_as, position and :raw come from the template (or from where ${name} stands in command:)"
	case errors.Is(err, tool.ErrUndefinedParameter):
		return "every explicit parameter of an exec:/shell: tool must appear as ${name} in the template or be named by stdin:"
	case errors.Is(err, tool.ErrMode):
		return "write exactly one of command: [...], exec: \"...\" or shell: \"...\""
	}
	return ""
}

// validToolName matches what OpenAI and Anthropic accept.
func validToolName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// decodeParam reads one explicit parameter.
func decodeParam(d *doc, n *yaml.Node) (tool.ParamDef, bool) {
	before := len(d.l.problems)
	f := d.fields(n, "a parameter", paramKeys)
	if f == nil {
		return tool.ParamDef{}, false
	}
	pd := tool.ParamDef{
		Raw:         d.boolPtr(f["raw"], "raw"),
		Name:        d.str(f["name"], "parameter name"),
		Type:        d.strPtr(f["type"], "parameter type"),
		Description: d.strPtr(f["description"], "parameter description"),
		Required:    d.boolPtr(f["required"], "required"),
		InjectAs:    d.strPtr(f["inject_as"], "inject_as"),
		OptionName:  d.strPtr(f["option_name"], "option_name"),
		Default:     d.strPtr(f["default"], "default"),
	}
	if fp, ok := f["position"]; ok {
		p := d.integer(fp, "position")
		pd.Position = &p
	}
	if pd.Name == "" {
		if len(d.l.problems) == before { // not when the entry's mistake is already reported
			d.problem(n, ErrInvalid, "", "parameter needs a name")
		}
		return pd, false
	}
	return pd, true
}
