package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

const (
	anthropicDefaultBaseURL = "https://api.anthropic.com/"
	// anthropicDefaultMaxTokens fills the Messages API's required
	// max_tokens when agent.yaml does not set llm.max_tokens.
	anthropicDefaultMaxTokens = 4096
)

// anthropicThinkingBudget is the extended-thinking budget (tokens) of each
// llm.reasoning_effort. max_tokens must exceed it: when llm.max_tokens is
// unset it becomes the budget plus the default answer length.
var anthropicThinkingBudget = map[string]int64{"low": 2048, "medium": 8192, "high": 24576}

// anthropicProvider speaks the Anthropic Messages API natively.
type anthropicProvider struct {
	remote
	client anthropic.Client
}

func newAnthropic(cfg agent.LLMConfig, env map[string]string) (llm.Provider, error) {
	r, err := newRemote("anthropic", cfg, env, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", anthropicDefaultBaseURL)
	if err != nil {
		return nil, err
	}
	client := anthropic.NewClient(
		// The SDK would otherwise read keys, tokens and profiles from the
		// process environment and home directory; Delta's .env merge is
		// the only source.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(r.ep.key),
		option.WithBaseURL(r.base),
		option.WithMaxRetries(0), // retries are ours: see Retry
		option.WithHTTPClient(r.http),
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			return r.send(req, next)
		}),
	)
	return &anthropicProvider{remote: r, client: client}, nil
}

// Complete sends req as one Messages call, retrying transient failures.
func (p *anthropicProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, opts, err := anthropicParams(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("anthropic: %w", err)
	}
	// The SDK refuses a non-streaming call whose max_tokens might take
	// over 10 minutes unless the request has a timeout of its own; ours is
	// llm.timeout_ms, enforced by retry.
	timeout := p.retry.Timeout
	if timeout <= 0 {
		timeout = 24 * time.Hour
	}
	opts = append(opts, option.WithRequestTimeout(timeout))
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		if req.OnText != nil {
			return p.stream(ctx, params, opts, req.OnText)
		}
		m, err := p.client.Messages.New(ctx, params, opts...)
		if err != nil {
			return llm.Response{}, p.wrap(err)
		}
		return anthropicResponse(m), nil
	})
}

// stream makes one streaming call: onText gets the text as it arrives,
// and the events add up to the message a plain call returns (thinking
// blocks and their signatures included).
func (p *anthropicProvider) stream(ctx context.Context, params anthropic.MessageNewParams, opts []option.RequestOption, onText func(string)) (llm.Response, error) {
	s := p.client.Messages.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var m anthropic.Message
	for s.Next() {
		ev := s.Current()
		if err := m.Accumulate(ev); err != nil {
			return llm.Response{}, fmt.Errorf("anthropic: stream: %w", err)
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
			onText(ev.Delta.Text)
		}
	}
	if err := s.Err(); err != nil {
		return llm.Response{}, p.wrap(err)
	}
	return anthropicResponse(&m), nil
}

func (p *anthropicProvider) wrap(err error) error {
	var pe *APIError
	if errors.As(err, &pe) {
		return pe
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return p.apiError(ae.StatusCode, ae.Response, anthropicErrorMessage(ae.RawJSON()))
	}
	return p.redacted(err)
}

// anthropicErrorMessage pulls error.message out of an error body.
func anthropicErrorMessage(raw string) string {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil && body.Error.Message != "" {
		return body.Error.Type + ": " + body.Error.Message
	}
	return raw
}

// anthropicParams maps a Request: system messages go to the system field,
// tool calls and results become tool_use/tool_result blocks, and messages
// of the same role in a row share one turn (the API wants the tool results
// answering one assistant turn in a single user turn). Frequency and
// presence penalties and seed have no Anthropic equivalent and are not sent.
func anthropicParams(req llm.Request) (anthropic.MessageNewParams, []option.RequestOption, error) {
	sp := req.Params
	p := anthropic.MessageNewParams{Model: anthropic.Model(sp.Model), MaxTokens: anthropicDefaultMaxTokens}
	if sp.MaxTokens != nil {
		p.MaxTokens = *sp.MaxTokens
	}
	if sp.Temperature != nil {
		p.Temperature = anthropic.Float(*sp.Temperature)
	}
	if sp.TopP != nil {
		p.TopP = anthropic.Float(*sp.TopP)
	}
	p.StopSequences = sp.Stop
	if sp.ReasoningEffort != "" {
		budget, ok := anthropicThinkingBudget[sp.ReasoningEffort]
		if !ok {
			return p, nil, fmt.Errorf("unknown reasoning_effort %q (low, medium or high)", sp.ReasoningEffort)
		}
		if sp.MaxTokens == nil {
			p.MaxTokens = budget + anthropicDefaultMaxTokens
		} else if p.MaxTokens <= budget {
			return p, nil, fmt.Errorf("llm.max_tokens (%d) must be larger than the thinking budget of reasoning_effort %s (%d tokens): raise max_tokens or lower reasoning_effort", p.MaxTokens, sp.ReasoningEffort, budget)
		}
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
	}
	for i, m := range req.Messages {
		if m.Role == llm.RoleSystem {
			if m.Content != "" {
				p.System = append(p.System, anthropic.TextBlockParam{Text: m.Content})
			}
			continue
		}
		role, blocks, err := anthropicBlocks(m)
		if err != nil {
			return p, nil, fmt.Errorf("message %d: %w", i, err)
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
			continue
		}
		p.Messages = append(p.Messages, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		tp, err := anthropicTool(t)
		if err != nil {
			return p, nil, err
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	var opts []option.RequestOption
	for k, v := range sp.Extra {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return p, opts, nil
}

func anthropicBlocks(m llm.Message) (anthropic.MessageParamRole, []anthropic.ContentBlockParamUnion, error) {
	switch m.Role {
	case llm.RoleUser:
		return anthropic.MessageParamRoleUser, []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(nonEmpty(m.Content))}, nil
	case llm.RoleTool:
		return anthropic.MessageParamRoleUser, []anthropic.ContentBlockParamUnion{anthropic.NewToolResultBlock(m.ToolCallID, nonEmpty(m.Content), false)}, nil
	case llm.RoleAssistant:
		// Thinking blocks come first, exactly as received: the API checks
		// their signatures and wants them before the tool_use they led to.
		var blocks []anthropic.ContentBlockParamUnion
		for _, r := range m.Reasoning {
			switch r.Type {
			case "thinking":
				blocks = append(blocks, anthropic.NewThinkingBlock(r.Signature, r.Text))
			case "redacted_thinking":
				blocks = append(blocks, anthropic.NewRedactedThinkingBlock(r.Data))
			}
		}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			blocks = append(blocks, anthropic.NewTextBlock(nonEmpty(m.Content)))
		}
		for _, c := range m.ToolCalls {
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
		}
		return anthropic.MessageParamRoleAssistant, blocks, nil
	default:
		return "", nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

// nonEmpty keeps text blocks valid: the API rejects empty ones.
func nonEmpty(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// toolInput is the call's arguments as a JSON object; arguments that are
// not an object (a model's malformed output) travel as {}.
func toolInput(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

func anthropicTool(t llm.ToolSpec) (anthropic.ToolParam, error) {
	schema, err := schemaMap(t.Parameters)
	if err != nil {
		return anthropic.ToolParam{}, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	in := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			in.Properties = v
		case "required":
			for _, r := range asSlice(v) {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		default:
			in.ExtraFields[k] = v
		}
	}
	tp := anthropic.ToolParam{Name: t.Name, InputSchema: in}
	if t.Description != "" {
		tp.Description = anthropic.String(t.Description)
	}
	return tp, nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// anthropicFinish maps stop reasons onto the OpenAI names the journal uses.
var anthropicFinish = map[anthropic.StopReason]string{
	anthropic.StopReasonEndTurn:      "stop",
	anthropic.StopReasonStopSequence: "stop",
	anthropic.StopReasonToolUse:      "tool_calls",
	anthropic.StopReasonMaxTokens:    "length",
}

func anthropicResponse(m *anthropic.Message) llm.Response {
	r := llm.Response{
		ID:    m.ID,
		Model: string(m.Model),
		Usage: llm.Usage{
			InputTokens:  m.Usage.InputTokens + m.Usage.CacheCreationInputTokens + m.Usage.CacheReadInputTokens,
			OutputTokens: m.Usage.OutputTokens,
		},
		FinishReason: string(m.StopReason),
	}
	if f, ok := anthropicFinish[m.StopReason]; ok {
		r.FinishReason = f
	}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			r.Content += b.Text
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: argsOrEmpty(string(b.Input))})
		case "thinking":
			r.Reasoning = append(r.Reasoning, llm.Reasoning{Type: b.Type, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			r.Reasoning = append(r.Reasoning, llm.Reasoning{Type: b.Type, Data: b.Data})
		}
	}
	return r
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
