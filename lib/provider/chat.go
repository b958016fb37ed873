package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// chatProvider is our client of the Chat Completions API
// (POST {base}/chat/completions), the protocol every OpenAI-compatible
// server speaks: Ollama, vLLM, OpenRouter, LM Studio, llama.cpp. The body
// is encoded by openAIBody; answers are read as one JSON object, or as a
// stream of chunks when the caller wants text as it arrives.
type chatProvider struct {
	remote
	// plainSchemas strips the JSON Schema keywords an endpoint refuses
	// from tool parameters (Gemini's: additionalProperties, $schema).
	plainSchemas bool
	// msgs keeps the encoded messages of the last request.
	msgs *messageCache
}

// Complete sends req as one chat completion, retrying transient failures.
func (p *chatProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.in.textOnly(&req)
	if p.plainSchemas {
		req.Tools = plainTools(req.Tools)
	}
	body, err := openAIBody(req, p.msgs)
	if err == nil {
		body, err = withExtra(body, req.Params.Extra)
	}
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", p.ep.name, err)
	}
	stream := req.OnText != nil
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		resp, err := p.post(ctx, "chat/completions", body, stream)
		if err != nil {
			return llm.Response{}, err
		}
		defer resp.Body.Close()
		url := resp.Request.URL.Redacted()
		if stream && isEventStream(resp) {
			return p.readChatStream(resp.Body, url, req.OnText)
		}
		return p.readChatBody(resp.Body, url)
	})
}

// withExtra sets agent.yaml's pass-through parameters (llm keys Delta
// does not know) at the top of the body, over any field of ours.
func withExtra(body []byte, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 {
		return body, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("add extra parameters: %w", err)
	}
	for k, v := range extra {
		b, err := encodeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("llm.%s: %w", k, err)
		}
		fields[k] = b
	}
	return encodeJSON(fields)
}

// isEventStream reports whether resp is server-sent events: a server that
// ignores "stream": true answers with one JSON object instead.
func isEventStream(resp *http.Response) bool {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return ct == "text/event-stream"
}

// chatCompletion is the answer of a request without "stream".
type chatCompletion struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string        `json:"content"`
			ToolCalls []chatToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
	// Error is set by servers that answer a failure with status 200.
	Error json.RawMessage `json:"error"`
}

// chatUsage is the usage object of an answer or of a stream's last chunk.
type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// usage maps the usage object to llm.Usage: prompt tokens include the
// cached ones, completion tokens the reasoning ones, as in llm.Usage.
func (u *chatUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
}

// readChatBody decodes a whole chat.completion answer.
func (p *chatProvider) readChatBody(body io.Reader, url string) (llm.Response, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return llm.Response{}, p.streamBroke(url, err, llm.Response{})
	}
	var c chatCompletion
	if err := json.Unmarshal(data, &c); err != nil {
		return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url,
			Err: &syntaxError{what: "the body", err: err, text: clip(string(data), 80)}}
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return llm.Response{}, p.chatErrorEvent(c.Error)
	}
	if len(c.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("%s: the answer from %s has no choices: %q", p.ep.name, url, clip(string(data), 200))
	}
	ch := c.Choices[0]
	r := llm.Response{ID: c.ID, Model: c.Model, FinishReason: ch.FinishReason, Usage: c.Usage.usage()}
	if ch.Message.Content != nil {
		r.Content = *ch.Message.Content
	}
	for _, tc := range ch.Message.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: argsOrEmpty(tc.Function.Arguments)})
	}
	return r, nil
}

// chatErrorEvent is the {"message", "type", "code"} error object of an
// answer or a stream chunk as an *APIError.
func (p *chatProvider) chatErrorEvent(raw json.RawMessage) error {
	var e struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Message == "" {
		e.Message = strings.Trim(string(raw), `"`)
	}
	// OpenRouter gives the HTTP status as a number.
	if n, ok := e.Code.(float64); ok && n >= 400 && n < 600 {
		return p.ep.newAPIError(int(n), nil, e.Message)
	}
	code, _ := e.Code.(string)
	return p.eventAPIError(code, e.Type, e.Message)
}

func argsOrEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}
