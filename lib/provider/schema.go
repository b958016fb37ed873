package provider

import (
	"encoding/json"

	"github.com/deltakit/delta/lib/llm"
)

// refusedKeywords are the JSON Schema keywords Gemini's function
// declarations reject ("Invalid JSON payload received. Unknown name
// additionalProperties"), though tools may use them.
var refusedKeywords = []string{"additionalProperties", "$schema"}

// plainTools returns tools with refusedKeywords removed from their
// parameter schemas, at every level; the originals are not changed. A
// schema that is not JSON is left as it is (openAIBody reports it).
func plainTools(tools []llm.ToolSpec) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		out[i] = t
		var v any
		if len(t.Parameters) == 0 || json.Unmarshal(t.Parameters, &v) != nil {
			continue
		}
		if data, err := json.Marshal(plainSchema(v)); err == nil {
			out[i].Parameters = data
		}
	}
	return out
}

// plainSchema strips refusedKeywords from schema s. The keys of a
// properties map are parameter names, not keywords: only their schemas
// are stripped.
func plainSchema(s any) any {
	switch v := s.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch {
			case isRefused(k):
			case k == "properties" || k == "definitions" || k == "$defs" || k == "patternProperties":
				if props, ok := x.(map[string]any); ok {
					m := make(map[string]any, len(props))
					for name, p := range props {
						m[name] = plainSchema(p)
					}
					out[k] = m
				} else {
					out[k] = x
				}
			default:
				out[k] = plainSchema(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plainSchema(x)
		}
		return out
	}
	return s
}

func isRefused(k string) bool {
	for _, r := range refusedKeywords {
		if k == r {
			return true
		}
	}
	return false
}
