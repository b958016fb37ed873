package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

const openAIDefaultBaseURL = "https://api.openai.com/v1/"

// geminiDefaultBaseURL is Gemini's OpenAI-compatible endpoint.
const geminiDefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta/openai/"

// openAIProvider talks to any OpenAI-compatible chat completions endpoint.
type openAIProvider struct {
	remote
	client openai.Client
	// plainSchemas strips the JSON Schema keywords an endpoint refuses
	// from tool parameters (Gemini's: additionalProperties, $schema).
	plainSchemas bool
	// msgs keeps the encoded messages of the last request.
	msgs *messageCache
}

func newOpenAI(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	return newOpenAICompatible(newRemote("openai", cfg, env, "OPENAI_API_KEY", "OPENAI_BASE_URL", openAIDefaultBaseURL))
}

// newGemini talks to Gemini through its OpenAI-compatible endpoint.
func newGemini(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	p, err := newOpenAICompatible(newRemote("gemini", cfg, env, "GEMINI_API_KEY", "GEMINI_BASE_URL", geminiDefaultBaseURL))
	if err != nil {
		return nil, err
	}
	p.(*openAIProvider).plainSchemas = true
	return p, nil
}

// newOpenAICompatible is the chat completions client of endpoint r.
func newOpenAICompatible(r remote, err error) (llm.Provider, error) {
	if err != nil {
		return nil, err
	}
	client := openai.NewClient(
		option.WithAPIKey(r.ep.key),
		option.WithBaseURL(r.base),
		option.WithMaxRetries(0), // retries are ours: see Retry
		option.WithHTTPClient(r.http),
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			return r.send(req, next)
		}),
	)
	return &openAIProvider{remote: r, client: client, msgs: newMessageCache()}, nil
}

// Complete sends req as one chat completion, retrying transient failures.
func (p *openAIProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if p.plainSchemas {
		req.Tools = plainTools(req.Tools)
	}
	body, err := openAIBody(req, p.msgs)
	if err != nil {
		return llm.Response{}, fmt.Errorf("openai: %w", err)
	}
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		// Each attempt gets its own copy: extra fields are set into the
		// body in place.
		opts := []option.RequestOption{option.WithRequestBody("application/json", bytes.Clone(body))}
		for k, v := range req.Params.Extra {
			opts = append(opts, option.WithJSONSet(k, v))
		}
		if req.OnText != nil {
			return p.stream(ctx, opts, req.OnText)
		}
		c, err := p.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{}, opts...)
		if err != nil {
			return llm.Response{}, p.wrap(err)
		}
		return openAIResponse(c)
	})
}

// stream makes one streaming call: onText gets the text as it arrives,
// and the chunks add up to the same response a plain call returns.
func (p *openAIProvider) stream(ctx context.Context, opts []option.RequestOption, onText func(string)) (llm.Response, error) {
	s := p.client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{}, opts...)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		chunk := s.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			if ch.Index == 0 && ch.Delta.Content != "" {
				onText(ch.Delta.Content)
			}
		}
	}
	if err := s.Err(); err != nil {
		return llm.Response{}, p.wrap(err)
	}
	return openAIResponse(&acc.ChatCompletion)
}

// wrap turns SDK errors into APIError (HTTP answers) or a redacted error.
func (p *openAIProvider) wrap(err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	var oe *openai.Error
	if errors.As(err, &oe) {
		msg := oe.Message
		if msg == "" {
			msg = oe.RawJSON()
		}
		return p.apiError(oe.StatusCode, oe.Response, msg)
	}
	return p.redacted(err)
}

func argsOrEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

func openAIResponse(c *openai.ChatCompletion) (llm.Response, error) {
	if len(c.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("openai: response has no choices")
	}
	ch := c.Choices[0]
	r := llm.Response{
		ID:           c.ID,
		Content:      ch.Message.Content,
		Model:        c.Model,
		FinishReason: ch.FinishReason,
		Usage:        llm.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens},
	}
	for _, tc := range ch.Message.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: argsOrEmpty(tc.Function.Arguments)})
	}
	return r, nil
}
