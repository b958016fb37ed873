package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrArguments is wrapped when a tool call's arguments do not fit the
// tool's parameter schema; the plugin is not called.
var ErrArguments = errors.New("invalid arguments")

// argSchema is the part of a tool's JSON Schema the host checks: the
// top-level object's properties (and their types), required names and
// additionalProperties. Deeper structure is the plugin's business.
type argSchema struct {
	Properties           map[string]struct{ Type any } `json:"properties"`
	Required             []string                      `json:"required"`
	AdditionalProperties *bool                         `json:"additionalProperties"`
}

// checkArgs checks a call's arguments against the tool's parameter schema
// before the plugin sees them, so that a misnamed or missing parameter is
// reported as such to the model instead of surfacing as a confusing error
// from inside the tool. Every problem is listed, with the parameters the
// tool has. A schema the host cannot read is not checked.
func checkArgs(schema, args json.RawMessage) error {
	var s argSchema
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var got map[string]json.RawMessage
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &got); err != nil {
			return fmt.Errorf("%w: the arguments must be a JSON object: %v", ErrArguments, err)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	var probs []string
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p, known := s.Properties[k]
		switch {
		case !known && s.AdditionalProperties != nil && !*s.AdditionalProperties:
			probs = append(probs, fmt.Sprintf("unknown parameter %q", k))
		case known:
			if want := typeMismatch(p.Type, got[k]); want != "" {
				probs = append(probs, fmt.Sprintf("parameter %q must be %s", k, want))
			}
		}
	}
	for _, r := range s.Required {
		if _, ok := got[r]; !ok {
			probs = append(probs, fmt.Sprintf("missing required parameter %q", r))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (parameters: %s)", ErrArguments, strings.Join(probs, "; "), strings.Join(names, ", "))
}

// typeMismatch returns the expected type ("a string", …) when v is not of
// the schema type t (a name or a list of names), "" when it is or when t
// is absent or unknown.
func typeMismatch(t any, v json.RawMessage) string {
	var types []string
	switch t := t.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		return ""
	}
	got := jsonType(v)
	for _, want := range types {
		if want == got || want == "number" && got == "integer" {
			return ""
		}
		if !slices.Contains([]string{"string", "integer", "number", "boolean", "array", "object", "null"}, want) {
			return "" // not a type the host knows: leave it to the plugin
		}
	}
	var words []string
	for _, w := range types {
		words = append(words, article(w)+" "+w)
	}
	return strings.Join(words, " or ") + ", not " + article(got) + " " + got
}

// jsonType is the JSON Schema type name of a JSON value.
func jsonType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "null"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
			return "integer"
		}
	}
	return "number"
}

func article(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}
