package agent

import (
	"os"

	"gopkg.in/yaml.v3"
)

// YAMLFile decodes a YAML file of another Delta format (the workflow file
// of delta-workflow(5)) with agent.yaml's machinery, so that its mistakes
// read the same: file:line:col, a did-you-mean for an unknown key, a hint
// for a YAML syntax error, and every problem at once (Err).
type YAMLFile struct {
	d *doc
}

// YAMLField is one key of a mapping and its value.
type YAMLField struct {
	Key, Value *yaml.Node
}

// ReadYAMLFile reads and parses path. It returns the file and its root
// node (an empty mapping for an empty file), or a nil root after recording
// the problem (see Err).
func ReadYAMLFile(path string) (*YAMLFile, *yaml.Node) {
	l := &loader{}
	l.cwd, _ = os.Getwd()
	d, root := l.readDoc(path)
	return &YAMLFile{d: d}, root
}

// Name is the file as messages show it (relative to the current directory
// when below it).
func (f *YAMLFile) Name() string { return f.d.name }

// Fields checks that n is a mapping with only the known keys (with a
// did-you-mean for the others; nil known accepts any) and no key twice,
// and returns its keys. It returns nil, after recording the problem, when
// n is not a mapping.
func (f *YAMLFile) Fields(n *yaml.Node, what string, known []string) map[string]YAMLField {
	fs := f.d.fields(n, what, known)
	if fs == nil {
		return nil
	}
	out := make(map[string]YAMLField, len(fs))
	for k, v := range fs {
		out[k] = YAMLField{Key: v.key, Value: v.value}
	}
	return out
}

// Str decodes a scalar as a string ("" when absent).
func (f *YAMLFile) Str(fl YAMLField, what string) string {
	return f.d.str(field{key: fl.Key, value: fl.Value}, what)
}

// StrList decodes a list of strings.
func (f *YAMLFile) StrList(fl YAMLField, what string) []string {
	return f.d.strList(field{key: fl.Key, value: fl.Value}, what)
}

// List returns the items of a sequence (nil when absent or empty).
func (f *YAMLFile) List(fl YAMLField, what string) []*yaml.Node {
	return f.d.list(field{key: fl.Key, value: fl.Value}, what)
}

// Positive decodes an optional integer that must be at least 1 when given.
func (f *YAMLFile) Positive(fl YAMLField, what string) int {
	return f.d.positive(field{key: fl.Key, value: fl.Value}, what)
}

// Problem records a problem at node n (nil: the whole file); kind is the
// sentinel it matches.
func (f *YAMLFile) Problem(n *yaml.Node, kind error, hint, format string, args ...any) {
	f.d.problem(n, kind, hint, format, args...)
}

// Suggest returns the known word closest to s when s is a plausible typo
// of it, else "".
func Suggest(s string, known []string) string { return suggest(s, known) }

// KindName describes a node for messages: "a mapping", "a list", "empty"
// or the quoted scalar.
func KindName(n *yaml.Node) string { return kindName(n) }

// Err returns every problem recorded so far as a *LoadError, or nil.
func (f *YAMLFile) Err() error {
	if len(f.d.l.problems) == 0 {
		return nil
	}
	return &LoadError{Problems: append([]Problem(nil), f.d.l.problems...)}
}
