package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

const (
	anthropicDefaultBaseURL = "https://api.anthropic.com/"
	// anthropicVersion is the Messages API version Delta speaks.
	anthropicVersion = "2023-06-01"
	// anthropicDefaultMaxTokens fills the Messages API's required
	// max_tokens when agent.yaml does not set llm.max_tokens.
	anthropicDefaultMaxTokens = 4096
)

// anthropicThinkingBudget is the extended-thinking budget (tokens) of each
// llm.reasoning_effort. max_tokens must exceed it: when llm.max_tokens is
// unset it becomes the budget plus the default answer length.
var anthropicThinkingBudget = map[string]int64{"low": 2048, "medium": 8192, "high": 24576}

// anthropicProvider speaks the Anthropic Messages API
// (https://docs.anthropic.com/en/api/messages) over net/http.
type anthropicProvider struct {
	remote
	// cache places prompt-caching breakpoints (llm.cache, on by default).
	cache bool
}

func newAnthropic(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	r, err := newRemote("anthropic", cfg, env, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", anthropicDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	r.auth = func(h http.Header, key string) { h.Set("X-Api-Key", key) }
	r.header = http.Header{"Anthropic-Version": {anthropicVersion}}
	r.errMsg = anthropicErrorMessage
	return &anthropicProvider{remote: r, cache: cfg.CacheOn()}, nil
}

// Complete sends req as one Messages call, retrying transient failures.
func (p *anthropicProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.in.textOnly(&req)
	body, err := anthropicBody(req, p.cache)
	if err != nil {
		return llm.Response{}, fmt.Errorf("anthropic: %w", err)
	}
	stream := req.OnText != nil
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		resp, err := p.post(ctx, "v1/messages", body, stream)
		if err != nil {
			return llm.Response{}, err
		}
		defer resp.Body.Close()
		if stream {
			return p.readStream(resp.Body, resp.Request.URL.Redacted(), req.OnText)
		}
		var m anthropicMessage
		if err := json.NewDecoder(bufio.NewReader(resp.Body)).Decode(&m); err != nil {
			return llm.Response{}, p.redacted(fmt.Errorf("decode the answer: %w", err))
		}
		return m.response(), nil
	})
}

// anthropicError is the body of an error answer, and of a stream's error
// event.
type anthropicError struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anthropicErrorMessage is "type: message" of an error body, or the body.
func anthropicErrorMessage(raw []byte) string {
	var body anthropicError
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		return body.Error.Type + ": " + body.Error.Message
	}
	return string(raw)
}

// anthropicErrorStatus is the HTTP status an error type comes with
// (https://docs.anthropic.com/en/api/errors), for an error that arrives
// as a stream event after the 200: it is retried, or not, like the
// answer it stands for.
var anthropicErrorStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"overloaded_error":      statusOverloaded,
}
