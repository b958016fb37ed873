package provider

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// modelProviders are the providers whose argument is a model name, and
// so may be written PROVIDER/MODEL too.
var modelProviders = llm.ModelProviders

// ModelForms says which model strings ParseModel accepts, for errors and
// hints.
func ModelForms() string {
	names := make([]string, 0, len(llm.ModelAliases))
	for a := range llm.ModelAliases {
		names = append(names, a)
	}
	sort.Strings(names)
	return fmt.Sprintf("PROVIDER:MODEL or PROVIDER/MODEL (openai/gpt-4o, anthropic:claude-sonnet-4-5), a provider alone, "+
		"scripted:FILE, replay:RUN, or an alias (%s); providers: %s", strings.Join(names, ", "), strings.Join(Providers, ", "))
}

// ParseModel splits a model string into provider and argument (a model
// name, or the script or run of scripted and replay): an alias is
// expanded first; PROVIDER:ARG splits at the first colon, so the model
// keeps any slash (openai:meta-llama/llama-3 for an OpenRouter model);
// PROVIDER/MODEL splits at the first slash when PROVIDER is openai,
// anthropic or gemini; a provider alone has no argument. Anything else is
// ErrUnknownProvider, with the accepted forms.
func ParseModel(s string) (name, arg string, err error) {
	s = strings.TrimSpace(s)
	if full, ok := llm.ModelAliases[s]; ok {
		s = full
	}
	if name, arg, ok := strings.Cut(s, ":"); ok && slices.Contains(Providers, name) {
		return name, arg, nil
	}
	if name, arg, ok := strings.Cut(s, "/"); ok && slices.Contains(modelProviders, name) && arg != "" {
		return name, arg, nil
	}
	if slices.Contains(Providers, s) {
		return s, "", nil
	}
	name = s
	if i := strings.IndexAny(s, ":/"); i >= 0 {
		name = s[:i]
	}
	return "", "", fmt.Errorf("%w %q in %q: write %s", ErrUnknownProvider, name, s, ModelForms())
}

// SplitModel reads agent.yaml's llm.model when llm.provider is not set: a
// model string naming its provider (anthropic/claude-sonnet-4-5, an alias)
// gives both; any other model stays as it is, for the default provider.
func SplitModel(model string) (name, m string, ok bool) {
	return llm.SplitModel(model)
}
