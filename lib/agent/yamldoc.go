package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// doc is one YAML file being decoded; problems go to the shared loader so
// that every problem of every file is reported at once.
type doc struct {
	l    *loader
	path string // absolute
	name string // as shown in messages
}

// readDoc reads and parses a YAML file. It returns the root node (an empty
// mapping for an empty file) or nil after reporting a problem.
func (l *loader) readDoc(path string) (*doc, *yaml.Node) {
	d := &doc{l: l, path: path, name: l.display(path)}
	data, err := os.ReadFile(path)
	if err != nil {
		l.add(Problem{File: d.name, Msg: fmt.Sprintf("read: %v", err), Err: ErrMissingFile})
		return d, nil
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return d, &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}
		}
		line, msg := yamlErrorLine(err)
		if first := firstFailingLine(data, msg); first > 0 {
			line = first
		}
		l.add(Problem{File: d.name, Line: line, Col: 1, Msg: "invalid YAML: " + msg, Hint: yamlHint(msg), Err: ErrInvalid})
		return d, nil
	}
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return d, &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	}
	return d, n
}

// yamlErrorLine splits a yaml.v3 error, "yaml: line N: …", into N and the
// message.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			line, _ := strconv.Atoi(n)
			return line, tail
		}
	}
	return 0, msg
}

// yamlHint says what usually causes a YAML syntax error.
func yamlHint(msg string) string {
	switch {
	case strings.Contains(msg, "did not find expected key"), strings.Contains(msg, "mapping values are not allowed"):
		return "check this line's indentation: the keys of one mapping line up, and a value containing ': ' needs quotes"
	case strings.Contains(msg, "tab character"), strings.Contains(msg, "found character that cannot start any token"):
		return "YAML indents with spaces, not tabs; quote values that start with @, ` or %"
	case strings.Contains(msg, "did not find expected ',' or"):
		return "a flow collection ([...] or {...}) needs commas between items and its closing bracket"
	}
	return ""
}

// maxRelocateLines bounds the work firstFailingLine does on a broken file.
const maxRelocateLines = 2000

// firstFailingLine finds the line that breaks the document. yaml.v3 names
// the line where the enclosing block starts ("line 6: did not find expected
// key" for a key misindented on line 13), so the prefixes of the document
// are parsed, growing a line at a time: the first prefix failing with the
// same message ends at the offending line. 0 when none does.
func firstFailingLine(data []byte, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxRelocateLines {
		return 0
	}
	end := 0
	for i, ln := range lines {
		end += len(ln)
		var n yaml.Node
		err := yaml.Unmarshal(data[:end], &n)
		if err == nil {
			continue
		}
		if _, m := yamlErrorLine(err); m == msg {
			return i + 1
		}
	}
	return 0
}

// pos renders a node's position as file:line:col.
func (d *doc) pos(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", d.name, n.Line, n.Column)
}

// problem reports a problem at node n.
func (d *doc) problem(n *yaml.Node, kind error, hint, format string, args ...any) {
	p := Problem{File: d.name, Msg: fmt.Sprintf(format, args...), Hint: hint, Err: kind}
	if n != nil {
		p.Line, p.Col = n.Line, n.Column
	}
	d.l.add(p)
}

// field is one key of a mapping.
type field struct {
	key   *yaml.Node
	value *yaml.Node
}

// fields checks that n is a mapping with only known keys (reporting
// unknown ones with a did-you-mean, and duplicates) and returns its keys.
// With known == nil any key is accepted. It returns nil (after reporting)
// when n is not a mapping, so callers can skip the entry and not report
// the same mistake again as missing keys.
func (d *doc) fields(n *yaml.Node, what string, known []string) map[string]field {
	out := map[string]field{}
	if n == nil {
		return out
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, ErrInvalid, "", "%s must be a mapping (key: value), not %s", what, kindName(n))
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := out[k.Value]; dup {
			d.problem(k, ErrInvalid, "", "key %q appears twice in %s", k.Value, what)
			continue
		}
		if known != nil && !contains(known, k.Value) {
			d.unknownKey(k, what, known)
			continue
		}
		out[k.Value] = field{key: k, value: v}
	}
	return out
}

// unknownKey reports a key the format does not have.
func (d *doc) unknownKey(k *yaml.Node, what string, known []string) {
	hint := "known keys: " + strings.Join(known, ", ")
	msg := fmt.Sprintf("unknown key %q in %s", k.Value, what)
	if s := suggest(k.Value, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	d.problem(k, ErrUnknownKey, hint, "%s", msg)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// kindName describes a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

// str decodes a scalar as a string (numbers such as version: 1.0 keep
// their text).
func (d *doc) str(f field, what string) string {
	if f.value == nil {
		return ""
	}
	if f.value.Kind != yaml.ScalarNode || f.value.Tag == "!!null" {
		d.problem(f.value, ErrInvalid, "", "%s must be a string, not %s", what, kindName(f.value))
		return ""
	}
	return f.value.Value
}

// strPtr is str for optional values whose absence matters.
func (d *doc) strPtr(f field, what string) *string {
	if f.value == nil {
		return nil
	}
	s := d.str(f, what)
	return &s
}

// strList decodes a list of strings.
func (d *doc) strList(f field, what string) []string {
	if f.value == nil {
		return nil
	}
	if f.value.Kind != yaml.SequenceNode {
		d.problem(f.value, ErrInvalid, "", "%s must be a list of strings, not %s", what, kindName(f.value))
		return nil
	}
	out := make([]string, 0, len(f.value.Content))
	for _, item := range f.value.Content {
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
			d.problem(item, ErrInvalid, "", "%s must be a list of strings; this item is %s", what, kindName(item))
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

// integer decodes a non-negative integer.
func (d *doc) integer(f field, what string) int {
	if f.value == nil {
		return 0
	}
	var n int
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!int" || f.value.Decode(&n) != nil || n < 0 {
		d.problem(f.value, ErrInvalid, "", "%s must be a non-negative integer, not %s", what, kindName(f.value))
		return 0
	}
	return n
}

// integerPtr is integer for optional values whose absence matters.
func (d *doc) integerPtr(f field, what string) *int {
	if f.value == nil {
		return nil
	}
	n := d.integer(f, what)
	return &n
}

// positive decodes an optional integer that must be at least 1 when given
// (0 still means "not set" to callers, so a written 0 must not pass
// silently as the default).
func (d *doc) positive(f field, what string) int {
	before := len(d.l.problems)
	n := d.integer(f, what)
	// A negative number was reported by integer (which returns 0 for it).
	if f.value != nil && n == 0 && f.value.Tag == "!!int" && len(d.l.problems) == before {
		d.problem(f.value, ErrInvalid, "remove the key to use the default", "%s must be at least 1, not 0", what)
	}
	return n
}

// intPtr decodes an optional integer of any sign.
func (d *doc) intPtr(f field, what string) *int64 {
	if f.value == nil {
		return nil
	}
	var n int64
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!int" || f.value.Decode(&n) != nil {
		d.problem(f.value, ErrInvalid, "", "%s must be an integer, not %s", what, kindName(f.value))
		return nil
	}
	return &n
}

// floatPtr decodes an optional number.
func (d *doc) floatPtr(f field, what string) *float64 {
	if f.value == nil {
		return nil
	}
	var x float64
	if f.value.Kind != yaml.ScalarNode || (f.value.Tag != "!!int" && f.value.Tag != "!!float") || f.value.Decode(&x) != nil {
		d.problem(f.value, ErrInvalid, "", "%s must be a number, not %s", what, kindName(f.value))
		return nil
	}
	return &x
}

// boolean decodes an optional boolean.
func (d *doc) boolPtr(f field, what string) *bool {
	if f.value == nil {
		return nil
	}
	var b bool
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!bool" || f.value.Decode(&b) != nil {
		d.problem(f.value, ErrInvalid, "", "%s must be true or false, not %s", what, kindName(f.value))
		return nil
	}
	return &b
}

// list returns the items of a sequence (reporting anything else).
func (d *doc) list(f field, what string) []*yaml.Node {
	if f.value == nil || (f.value.Kind == yaml.ScalarNode && f.value.Tag == "!!null") {
		return nil
	}
	if f.value.Kind != yaml.SequenceNode {
		d.problem(f.value, ErrInvalid, "", "%s must be a list, not %s", what, kindName(f.value))
		return nil
	}
	return f.value.Content
}
