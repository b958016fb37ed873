package llm

import (
	"slices"
	"strings"
)

// ModelAliases are short names for common models, accepted wherever a
// model string is (--llm sonnet, llm.model: sonnet, spawn_agent's model).
var ModelAliases = map[string]string{
	"sonnet":     "anthropic:claude-sonnet-4-5",
	"opus":       "anthropic:claude-opus-4-5",
	"haiku":      "anthropic:claude-haiku-4-5",
	"gpt":        "openai:gpt-5",
	"codex":      "openai:gpt-5-codex",
	"gemini-pro": "gemini:gemini-2.5-pro",
	"flash":      "gemini:gemini-2.5-flash",
}

// ModelProviders are the providers whose argument is a model name, and
// so may be written PROVIDER/MODEL as well as PROVIDER:MODEL.
var ModelProviders = []string{"openai", "openai-compatible", "anthropic", "gemini"}

// SplitModel reads a model string that may name its provider: an alias
// (sonnet) or PROVIDER/MODEL or PROVIDER:MODEL for one of ModelProviders
// gives both and ok; any other model stays as it is, with no provider.
func SplitModel(model string) (provider, name string, ok bool) {
	if full, isAlias := ModelAliases[model]; isAlias {
		model = full
	}
	for _, sep := range []string{":", "/"} {
		if p, m, found := strings.Cut(model, sep); found && slices.Contains(ModelProviders, p) && m != "" {
			return p, m, true
		}
	}
	return "", model, false
}
