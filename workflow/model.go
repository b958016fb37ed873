package workflow

import (
	"fmt"
	"path/filepath"
	"strings"
)

// modelHint says how a model is written.
const modelHint = "a model is PROVIDER/MODEL (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5), an alias (sonnet, opus, haiku), or scripted:FILE to replay a script offline (see examples/hello-world/script.yaml)"

// Model is an inline agent's model as agent.yaml's llm block takes it.
type Model struct {
	Provider, Name string
	// Script is the scripted provider's file (absolute).
	Script string
}

// modelAliases are short names of common models.
var modelAliases = map[string]string{
	"sonnet": "anthropic/claude-sonnet-4-5",
	"opus":   "anthropic/claude-opus-4-1",
	"haiku":  "anthropic/claude-haiku-4-5",
}

// ParseModel reads a model: PROVIDER/MODEL or PROVIDER:MODEL (providers
// openai, any OpenAI-compatible endpoint, and anthropic), an alias, a bare
// model name (anthropic when it starts with claude, else openai), or
// scripted:FILE, relative to dir.
func ParseModel(s, dir string) (Model, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Model{}, fmt.Errorf("empty model")
	}
	if a, ok := modelAliases[s]; ok {
		s = a
	}
	if file, ok := strings.CutPrefix(s, "scripted:"); ok {
		if file == "" {
			return Model{}, fmt.Errorf("model scripted: needs its script file: scripted:FILE")
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		return Model{Provider: "scripted", Name: "scripted", Script: file}, nil
	}
	i := strings.IndexAny(s, "/:")
	if i < 0 {
		if strings.HasPrefix(s, "claude") {
			return Model{Provider: "anthropic", Name: s}, nil
		}
		return Model{Provider: "openai", Name: s}, nil
	}
	provider, name := s[:i], s[i+1:]
	switch provider {
	case "openai", "anthropic":
	default:
		return Model{}, fmt.Errorf("unknown model provider %q in %q", provider, s)
	}
	if name == "" {
		return Model{}, fmt.Errorf("model %q names no model after the provider", s)
	}
	return Model{Provider: provider, Name: name}, nil
}
