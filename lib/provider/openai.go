package provider

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

const openAIDefaultBaseURL = "https://api.openai.com/v1/"

// Values of agent.yaml's llm.api.
const (
	APIResponses = "responses" // OpenAI's Responses API, /responses
	APIChat      = "chat"      // Chat Completions, /chat/completions
)

// newOpenAI is the client of the openai and openai-compatible providers.
// The wire protocol is llm.api when set; otherwise the Responses API for
// OpenAI's own endpoint (no base URL set, or one on api.openai.com), and
// Chat Completions for any other base URL and for openai-compatible,
// since that is the protocol every compatible server speaks.
func newOpenAI(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	name := cfg.Provider
	if name == "" {
		name = "openai"
	}
	r, err := newRemote(name, cfg, env, "OPENAI_API_KEY", "OPENAI_BASE_URL", openAIDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Provider == "openai-compatible" && r.ep.baseURL == "" {
		return nil, fmt.Errorf("openai-compatible provider needs the server's URL: set DELTA_BASE_URL (or OPENAI_BASE_URL, or llm.base_url in agent.yaml), such as http://localhost:11434/v1 for Ollama")
	}
	if chooseAPI(cfg, r.ep.baseURL) == APIResponses {
		return &responsesProvider{remote: r, items: newMessageCache()}, nil
	}
	return &chatProvider{remote: r, msgs: newMessageCache()}, nil
}

// chooseAPI applies the rule of newOpenAI.
func chooseAPI(cfg agent.LLMConfig, baseURL string) string {
	switch {
	case cfg.API != "":
		return cfg.API
	case cfg.Provider == "openai-compatible":
		return APIChat
	case baseURL == "":
		return APIResponses
	}
	if u, err := url.Parse(baseURL); err == nil && strings.EqualFold(u.Hostname(), "api.openai.com") {
		return APIResponses
	}
	return APIChat
}
