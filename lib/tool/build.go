package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Build turns a model's JSON arguments into the exact argv and stdin of one
// call, without running anything. Arguments must form a JSON object whose
// keys are parameter names. Values are strings; numbers and booleans are
// accepted and passed as their JSON text (8080, true) because models often
// send them unquoted; null counts as absent; objects and arrays are
// ErrBadArgument. A value is always exactly one argv element (or the
// stdin): it never changes the number or content of the other elements.
func Build(t Tool, args json.RawMessage) (Call, error) {
	values, err := argValues(t, args)
	if err != nil {
		return Call{}, err
	}
	call := Call{}
	slots := map[string]bool{}
	if t.ArgvTemplate != nil {
		call.Argv = execArgv(t, values)
		for _, w := range t.ArgvTemplate {
			for _, p := range w.Parts {
				slots[p.Param] = p.Param != ""
			}
		}
	} else {
		call.Argv = slices.Clone(t.Command)
	}
	ps := appendedParams(t, slots)
	last := lastPositioned(ps, values)
	for i, p := range ps {
		v, ok := values[p.Name]
		switch p.InjectAs {
		case Stdin:
			if ok {
				s := v
				call.Stdin = &s
			}
		case Option:
			if ok {
				call.Argv = append(call.Argv, p.OptionName, v)
			}
		case Argument:
			// An absent positioned value before a present one is "", so
			// later values keep their places ($N in a shell: script).
			if ok || (p.Position != nil && i < last) {
				call.Argv = append(call.Argv, v)
			}
		}
	}
	return call, nil
}

// appendedParams returns the parameters whose values follow the fixed argv
// (or go to stdin), in order: those with a position by position, then the
// others in definition order. Slots of an argv template are left out.
func appendedParams(t Tool, slots map[string]bool) []Param {
	var positioned, rest []Param
	for _, p := range t.Parameters {
		switch {
		case slots[p.Name]:
		case p.Position != nil && p.InjectAs != Stdin:
			positioned = append(positioned, p)
		default:
			rest = append(rest, p)
		}
	}
	slices.SortStableFunc(positioned, func(a, b Param) int { return *a.Position - *b.Position })
	return append(positioned, rest...)
}

// lastPositioned is the index in ps of the last positioned parameter that
// has a value, -1 when none has.
func lastPositioned(ps []Param, values map[string]string) int {
	last := -1
	for i, p := range ps {
		if _, ok := values[p.Name]; ok && p.Position != nil {
			last = i
		}
	}
	return last
}

// execArgv fills an exec: template. A word made of one optional parameter
// that has no value is left out; a glued word gets "" for it.
func execArgv(t Tool, values map[string]string) []string {
	argv := make([]string, 0, len(t.ArgvTemplate))
	for _, w := range t.ArgvTemplate {
		if len(w.Parts) == 1 && w.Parts[0].Param != "" {
			if v, ok := values[w.Parts[0].Param]; ok {
				argv = append(argv, v)
			}
			continue
		}
		var b strings.Builder
		for _, p := range w.Parts {
			if p.Param != "" {
				b.WriteString(values[p.Param])
			} else {
				b.WriteString(p.Literal)
			}
		}
		argv = append(argv, b.String())
	}
	return argv
}

// argValues decodes and checks the arguments object and applies defaults.
// The result holds a value for every parameter that has one.
func argValues(t Tool, args json.RawMessage) (map[string]string, error) {
	raw := map[string]json.RawMessage{}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return nil, errorf(ErrBadArgument, "tool %q: arguments must be a JSON object", t.Name)
		}
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, errorf(ErrBadArgument, "tool %q: arguments: %v", t.Name, err)
		}
	}
	names := map[string]bool{}
	for _, p := range t.Parameters {
		names[p.Name] = true
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !names[k] {
			return nil, errorf(ErrUnknownArgument, "tool %q has no parameter %q (parameters: %s)", t.Name, k, paramList(t))
		}
	}
	values := map[string]string{}
	for _, p := range t.Parameters {
		v, ok, err := argString(raw[p.Name])
		if err != nil {
			return nil, errorf(ErrBadArgument, "tool %q: argument %q: %v", t.Name, p.Name, err)
		}
		switch {
		case ok:
			values[p.Name] = v
		case p.Default != nil:
			values[p.Name] = *p.Default
		case p.Required:
			return nil, errorf(ErrMissingArgument, "tool %q needs argument %q", t.Name, p.Name)
		}
	}
	return values, nil
}

// argString converts one JSON value to the string passed to the command.
func argString(v json.RawMessage) (string, bool, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return "", false, nil
	}
	var s string
	switch v[0] {
	case '"':
		if err := json.Unmarshal(v, &s); err != nil {
			return "", false, err
		}
	case 't', 'f':
		b, err := strconv.ParseBool(string(v))
		if err != nil {
			return "", false, fmt.Errorf("not a boolean: %s", v)
		}
		s = strconv.FormatBool(b)
	case '{', '[':
		return "", false, fmt.Errorf("want a string, got %s", map[byte]string{'{': "an object", '[': "an array"}[v[0]])
	default:
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return "", false, err
		}
		s = n.String()
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", false, fmt.Errorf("value contains a NUL byte, which no argv element can hold")
	}
	return s, true, nil
}

func paramList(t Tool) string {
	if len(t.Parameters) == 0 {
		return "none"
	}
	names := make([]string, len(t.Parameters))
	for i, p := range t.Parameters {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
