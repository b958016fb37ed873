package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Keys of context.yaml.
var (
	contextKeys   = []string{"sources"}
	generatorKeys = []string{"command", "timeout_ms", "jq", "jq_file"}
	sourceKeys    = map[string][]string{
		SourceFile:         {"type", "id", "path", "on_missing", "max_tokens"},
		SourceComputedFile: {"type", "id", "generator", "output_path", "on_missing", "max_tokens"},
		SourceJournal:      {"type", "id", "max_iterations", "max_tokens"},
		SourceEnvironment:  {"type", "id", "max_tokens"},
		SourceProjectDocs:  {"type", "id", "max_tokens"},
		SourceSkills:       {"type", "id", "max_tokens"},
	}
)

// DefaultGeneratorTimeoutMS is a computed_file generator's default timeout.
const DefaultGeneratorTimeoutMS = 30000

// loadContext reads context.yaml (seeds/000 §2.4.3). An agent written by
// hand without one gets DefaultContextYAML and a warning instead of the
// seeds' error (§2.7.7): a first agent should run, and the warning says
// how to change what the model sees.
func (l *loader) loadContext(a *Agent) {
	path := filepath.Join(l.home, ContextFile)
	a.Context.Path = path
	var d *doc
	var root *yaml.Node
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		l.warn("[WARNING] %s: no context.yaml, so the model sees the default context: system_prompt.md, the workspace's DELTA.md when there is one, the list of skills (SKILL.md) when there are any, and the conversation (write a context.yaml to change it; see man 5 delta-agent, CONTEXT)", l.display(l.home))
		var parsed yaml.Node
		if err := yaml.Unmarshal([]byte(DefaultContextYAML), &parsed); err != nil || len(parsed.Content) == 0 {
			l.add(Problem{File: l.display(path), Msg: noContextMessage(l.home), Err: ErrNoContext})
			return
		}
		d, root = &doc{l: l, path: path, name: l.display(path)}, parsed.Content[0]
	} else {
		d, root = l.readDoc(path)
	}
	if root == nil {
		return
	}
	f := d.fields(root, "context.yaml", contextKeys)
	if _, ok := f["sources"]; !ok {
		d.problem(root, ErrInvalid, "see man 5 delta-agent (CONTEXT)", "context.yaml needs a sources: list")
		return
	}
	ids := map[string]int{}
	for i, item := range d.list(f["sources"], "sources") {
		src, ok := l.decodeSource(d, item, i)
		if !ok {
			continue
		}
		if src.ID != "" {
			if line, dup := ids[src.ID]; dup {
				d.problem(item, ErrInvalid, "", "source id %q is used twice (first at line %d)", src.ID, line)
			}
			ids[src.ID] = src.Line
		}
		a.Context.Sources = append(a.Context.Sources, src)
	}
}

// decodeSource reads one entry of sources.
func (l *loader) decodeSource(d *doc, n *yaml.Node, index int) (ContextSource, bool) {
	before := len(l.problems)
	src := ContextSource{Index: index, Line: n.Line, OnMissing: "error"}
	typ := mapValue(n, "type")
	src.Type = d.str(field{value: typ}, "source type")
	known, ok := sourceKeys[src.Type]
	if !ok {
		at := n
		if typ != nil {
			at = typ
		}
		d.problem(at, ErrInvalid, "source types: file, computed_file, journal, environment, project_docs, skills", "context source #%d needs a type of file, computed_file, journal, environment, project_docs or skills (got %q)", index+1, src.Type)
		return src, false
	}
	f := d.fields(n, "a "+src.Type+" source", known)
	src.ID = d.str(f["id"], "id")
	src.MaxTokens = d.integer(f["max_tokens"], "max_tokens")
	if om, ok := f["on_missing"]; ok {
		src.OnMissing = d.str(om, "on_missing")
		if src.OnMissing != "skip" && src.OnMissing != "error" {
			d.problem(om.value, ErrInvalid, "", "on_missing must be skip or error, not %q", src.OnMissing)
		}
	}
	switch src.Type {
	case SourceFile:
		src.Path = d.str(f["path"], "path")
		if src.Path == "" {
			d.problem(n, ErrInvalid, "example: path: '${AGENT_HOME}/system_prompt.md'", "file source needs a path")
		}
	case SourceComputedFile:
		src.OutputPath = d.str(f["output_path"], "output_path")
		src.Generator = l.decodeGenerator(d, n, f["generator"])
		if g := src.Generator; g != nil && len(g.Command) > 0 && src.OutputPath == "" {
			d.problem(n, ErrInvalid, "the generator command writes its output to output_path", "computed_file source with a generator command needs output_path")
		}
	case SourceJournal:
		src.MaxIterations = d.integer(f["max_iterations"], "max_iterations")
	}
	return src, len(l.problems) == before
}

// decodeGenerator reads a computed_file generator: exactly one of command,
// jq, jq_file.
func (l *loader) decodeGenerator(d *doc, source *yaml.Node, fg field) *Generator {
	if fg.value == nil {
		d.problem(source, ErrInvalid, "generator: {command: [...]} or {jq: '...'} or {jq_file: ...}", "computed_file source needs a generator")
		return nil
	}
	f := d.fields(fg.value, "generator", generatorKeys)
	g := &Generator{
		Command:   d.strList(f["command"], "generator command"),
		TimeoutMS: d.integer(f["timeout_ms"], "timeout_ms"),
		JQ:        d.str(f["jq"], "jq"),
		JQFile:    d.str(f["jq_file"], "jq_file"),
	}
	if g.TimeoutMS == 0 {
		g.TimeoutMS = DefaultGeneratorTimeoutMS
	}
	set := 0
	for _, k := range []string{"command", "jq", "jq_file"} {
		if _, ok := f[k]; ok {
			set++
		}
	}
	if set != 1 {
		d.problem(fg.value, ErrInvalid, "", "generator needs exactly one of command, jq, jq_file")
	} else if _, ok := f["command"]; ok && len(g.Command) == 0 {
		d.problem(f["command"].value, ErrInvalid, "", "generator command must name a program")
	}
	return g
}

// mapValue returns the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
