package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

// geminiAPIBaseURL is the Gemini API's root with its version: requests
// go to models/MODEL:generateContent under it.
const geminiAPIBaseURL = "https://generativelanguage.googleapis.com/v1beta/"

// geminiThinkingBudget is the thinkingConfig.thinkingBudget (tokens) of
// each llm.reasoning_effort.
var geminiThinkingBudget = map[string]int64{"low": 1024, "medium": 8192, "high": 24576}

// geminiProvider speaks the Gemini API natively
// (https://ai.google.dev/api/generate-content) over net/http.
type geminiProvider struct {
	remote
}

// newGeminiNative talks to Gemini's own generateContent API.
func newGeminiNative(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	r, err := newRemote("gemini", cfg, env, "GEMINI_API_KEY", "GEMINI_BASE_URL", geminiAPIBaseURL)
	if err != nil {
		return nil, err
	}
	r.auth = func(h http.Header, key string) { h.Set("X-Goog-Api-Key", key) }
	r.errMsg = geminiErrorMessage
	return &geminiProvider{remote: r}, nil
}

// Complete sends req as one generateContent call (streamGenerateContent
// with alt=sse when req.OnText is set), retrying transient failures.
func (p *geminiProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.in.textOnly(&req)
	body, err := geminiBody(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("gemini: %w", err)
	}
	path := "models/" + url.PathEscape(strings.TrimPrefix(req.Params.Model, "models/")) + ":generateContent"
	if req.OnText != nil {
		path = strings.TrimSuffix(path, ":generateContent") + ":streamGenerateContent?alt=sse"
	}
	stream := req.OnText != nil
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		resp, err := p.post(ctx, path, body, stream)
		if err != nil {
			return llm.Response{}, geminiOverflow(err)
		}
		defer resp.Body.Close()
		acc := newGeminiAnswer(req.OnText)
		if stream {
			return acc.readStream(p, resp.Body, resp.Request.URL.Redacted())
		}
		var chunk geminiResponse
		if err := json.NewDecoder(bufio.NewReader(resp.Body)).Decode(&chunk); err != nil {
			return llm.Response{}, p.redacted(fmt.Errorf("decode the answer: %w", err))
		}
		if err := acc.add(p, &chunk); err != nil {
			return llm.Response{}, err
		}
		return acc.response(), nil
	})
}

// geminiError is the body of an error answer, and of an error in a stream.
type geminiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// geminiErrorMessage is "STATUS: message" of an error body
// ({"error": {...}}, or a list of them), or the body.
func geminiErrorMessage(raw []byte) string {
	var body struct {
		Error geminiError `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			return geminiErrorMessage(list[0])
		}
	}
	if body.Error.Message != "" {
		if body.Error.Status != "" {
			return body.Error.Status + ": " + body.Error.Message
		}
		return body.Error.Message
	}
	return string(raw)
}

// geminiOverflow marks Gemini's refusal of a prompt over the context
// window ("The input token count (N) exceeds the maximum number of tokens
// allowed (M)") as llm.ErrContextOverflow.
func geminiOverflow(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(ae.Message), "exceeds the maximum number of tokens") {
		return overflowError{ae}
	}
	return err
}

// overflowError is an APIError known to be a context overflow.
type overflowError struct{ *APIError }

func (e overflowError) Unwrap() error { return e.APIError }

func (e overflowError) Is(target error) bool { return target == llm.ErrContextOverflow }
