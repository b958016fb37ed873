package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

const openAIDefaultBaseURL = "https://api.openai.com/v1/"

// openAIProvider talks to any OpenAI-compatible chat completions endpoint.
type openAIProvider struct {
	remote
	client openai.Client
}

func newOpenAI(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	r, err := newRemote("openai", cfg, env, "OPENAI_API_KEY", "OPENAI_BASE_URL", openAIDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	client := openai.NewClient(
		option.WithAPIKey(r.ep.key),
		option.WithBaseURL(r.base),
		option.WithMaxRetries(0), // retries are ours: see Retry
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			return r.pageGuard(req, next)
		}),
	)
	return &openAIProvider{remote: r, client: client}, nil
}

// Complete sends req as one chat completion, retrying transient failures.
func (p *openAIProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, opts, err := openAIParams(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("openai: %w", err)
	}
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		c, err := p.client.Chat.Completions.New(ctx, params, opts...)
		if err != nil {
			return llm.Response{}, p.wrap(err)
		}
		return openAIResponse(c)
	})
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

// openAIParams maps a Request onto the SDK's parameters; Extra travels as
// extra JSON fields.
func openAIParams(req llm.Request) (openai.ChatCompletionNewParams, []option.RequestOption, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(req.Params.Model)}
	for i, m := range req.Messages {
		mp, err := openAIMessage(m)
		if err != nil {
			return p, nil, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t.Parameters)
		if err != nil {
			return p, nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(def))
	}
	sp := req.Params
	if sp.Temperature != nil {
		p.Temperature = openai.Float(*sp.Temperature)
	}
	if sp.MaxTokens != nil {
		p.MaxTokens = openai.Int(*sp.MaxTokens)
	}
	if sp.TopP != nil {
		p.TopP = openai.Float(*sp.TopP)
	}
	if sp.FrequencyPenalty != nil {
		p.FrequencyPenalty = openai.Float(*sp.FrequencyPenalty)
	}
	if sp.PresencePenalty != nil {
		p.PresencePenalty = openai.Float(*sp.PresencePenalty)
	}
	if len(sp.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: sp.Stop}
	}
	if sp.Seed != nil {
		p.Seed = openai.Int(*sp.Seed)
	}
	var opts []option.RequestOption
	for k, v := range sp.Extra {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return p, opts, nil
}

func openAIMessage(m llm.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		u := openai.SystemMessage(m.Content)
		if m.Name != "" {
			u.OfSystem.Name = openai.String(m.Name)
		}
		return u, nil
	case llm.RoleUser:
		return openai.UserMessage(m.Content), nil
	case llm.RoleTool:
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		a := openai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argsOrEmpty(c.Arguments)},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	default:
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
	}
}

func argsOrEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

// schemaMap decodes a tool's JSON Schema; an absent schema means an object
// without properties.
func schemaMap(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("parameters schema is not a JSON object: %w", err)
	}
	return m, nil
}

func openAIResponse(c *openai.ChatCompletion) (llm.Response, error) {
	if len(c.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("openai: response has no choices")
	}
	ch := c.Choices[0]
	r := llm.Response{
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
