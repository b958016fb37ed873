// Package provider holds the model backends behind llm.Provider: OpenAI's
// Responses API, Chat Completions (any OpenAI-compatible endpoint),
// Anthropic Messages, and the scripted provider that replays turns from a
// file; with them the retry policy, the time limits and the .env chain
// that supplies keys and base URLs. The OpenAI clients are ours, over
// net/http and one SSE reader (sse.go). Only the binaries that call models
// import the package.
package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

// Sentinel errors of provider construction and calls; compare with errors.Is.
var (
	// ErrNoAPIKey: an HTTP provider was chosen but no key variable is set.
	ErrNoAPIKey = errors.New("no API key")
	// ErrAuth: the endpoint rejected the key (HTTP 401 or 403).
	ErrAuth = errors.New("authentication failed")
	// ErrUnknownProvider: agent.yaml names a provider Delta does not have.
	ErrUnknownProvider = errors.New("unknown llm provider")
)

// Providers lists the supported values of agent.yaml's llm.provider.
var Providers = []string{"openai", "openai-compatible", "anthropic", "gemini", "scripted", "replay"}

// New returns the provider cfg asks for. env is the merged variable set of
// LoadEnv: keys and base URLs are read from it, never from the process.
//
//	provider           key                               base URL
//	openai (default)   DELTA_API_KEY, OPENAI_API_KEY     llm.base_url, DELTA_BASE_URL, OPENAI_BASE_URL, api.openai.com
//	openai-compatible  DELTA_API_KEY, OPENAI_API_KEY     llm.base_url, DELTA_BASE_URL, OPENAI_BASE_URL (required)
//	anthropic         DELTA_API_KEY, ANTHROPIC_API_KEY  llm.base_url, DELTA_BASE_URL, ANTHROPIC_BASE_URL, api.anthropic.com
//	gemini            DELTA_API_KEY, GEMINI_API_KEY     llm.base_url, DELTA_BASE_URL, GEMINI_BASE_URL, generativelanguage.googleapis.com/v1beta
//	scripted          none (cfg.Script)                 none
//
// openai speaks OpenAI's Responses API to OpenAI's own endpoint and Chat
// Completions to any other base URL; openai-compatible always speaks Chat
// Completions; agent.yaml's llm.api overrides both (see newOpenAI).
//
// HTTP providers retry per DefaultRetry, tunable with DELTA_LLM_RETRIES and
// DELTA_LLM_RETRY_BASE.
func New(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	switch cfg.Provider {
	case "", "openai", "openai-compatible":
		return newOpenAI(cfg, env)
	case "anthropic":
		return newAnthropic(cfg, env)
	case "gemini":
		return newGeminiNative(cfg, env)
	case "scripted":
		if cfg.Script == "" {
			return nil, fmt.Errorf("scripted provider needs a script file (--llm scripted:FILE or llm.script in agent.yaml)")
		}
		return NewScripted(cfg.Script)
	case "replay":
		if cfg.Script == "" {
			return nil, fmt.Errorf("replay provider needs a run: --llm replay:RUN (a run id of the workspace, or a run directory)")
		}
		return NewReplay(cfg.Script)
	default:
		return nil, fmt.Errorf("%w %q (supported: %s)", ErrUnknownProvider, cfg.Provider, strings.Join(Providers, ", "))
	}
}

// ParamsOf copies the sampling parameters of agent.yaml's llm block.
func ParamsOf(cfg agent.LLMConfig) llm.Params {
	return llm.Params{
		Model:            cfg.Model,
		Temperature:      cfg.Temperature,
		MaxTokens:        cfg.MaxTokens,
		TopP:             cfg.TopP,
		FrequencyPenalty: cfg.FrequencyPenalty,
		PresencePenalty:  cfg.PresencePenalty,
		Stop:             cfg.Stop,
		Seed:             cfg.Seed,
		ReasoningEffort:  cfg.ReasoningEffort,
		Extra:            cfg.Extra,
	}
}

// endpoint is what an HTTP provider needs to connect.
type endpoint struct {
	name    string // provider name for messages: "openai", "anthropic"
	key     string
	keyVars []string // variables the key may come from, in order
	baseURL string
	// urlFrom names where baseURL came from, for messages: a variable,
	// or llm.base_url in agent.yaml; "" when the default is used.
	urlFrom string
}

// resolveEndpoint picks the key and base URL from env: DELTA_* first, then
// the provider's usual variables; agent.yaml's base_url wins over both.
func resolveEndpoint(name string, cfg agent.LLMConfig, env map[string]string, keyVar, urlVar string) (endpoint, error) {
	ep := endpoint{name: name, keyVars: []string{"DELTA_API_KEY", keyVar}}
	ep.key = firstSet(env, ep.keyVars...)
	ep.baseURL, ep.urlFrom = cfg.BaseURL, "llm.base_url in agent.yaml"
	if ep.baseURL == "" {
		ep.baseURL, ep.urlFrom = firstSetFrom(env, "DELTA_BASE_URL", urlVar)
	}
	// A server of one's own (Ollama, a local vLLM) often needs no key:
	// with a base URL set, requests go without one.
	if ep.key == "" && ep.baseURL == "" {
		return ep, fmt.Errorf("%s provider: %w: set DELTA_API_KEY (or %s) in the environment or in a .env file "+
			"(workspace, agent or project root), or point DELTA_BASE_URL at a server that needs no key; "+
			"for offline runs use the scripted provider (--llm scripted:FILE)",
			name, ErrNoAPIKey, keyVar)
	}
	return ep, nil
}

func firstSet(env map[string]string, names ...string) string {
	v, _ := firstSetFrom(env, names...)
	return v
}

// firstSetFrom is firstSet that also names the variable the value came
// from.
func firstSetFrom(env map[string]string, names ...string) (string, string) {
	for _, n := range names {
		if v := strings.TrimSpace(env[n]); v != "" {
			return v, n
		}
	}
	return "", ""
}

// redact removes the key from text that may reach a log or the journal.
func (ep endpoint) redact(s string) string {
	if len(ep.key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, ep.key, "[redacted]")
}
