// Package llm is the vocabulary Delta uses to talk about language models:
// messages, tool calls, usage, requests and responses, and the Provider
// interface. It holds no provider: the OpenAI, Anthropic and scripted
// backends live in lib/provider, so that the journal, runs and every binary
// that never calls a model stay free of the SDKs.
//
// The message shape follows OpenAI chat completions because the journal
// source of context.yaml rebuilds the conversation in that form (seeds/000
// §2.4.3); other providers translate at their edge.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message. Content is the text; an assistant message may
// carry ToolCalls instead of (or beside) text, and a tool message answers
// exactly one call through ToolCallID.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Parts are the message's images and sounds, after its text (a tool
	// result's image; see Part). Text-only messages have none.
	Parts      []Part     `json:"parts,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name optionally labels a system message with the context source id.
	Name string `json:"name,omitempty"`
	// IsError marks a tool message whose call failed (its ACTION_RESULT's
	// is_error), for providers that tell the model so (Anthropic's
	// tool_result is_error).
	IsError bool `json:"is_error,omitempty"`
	// Reasoning is an assistant message's reasoning blocks, sent back
	// exactly as received to the provider that produced them.
	Reasoning []Reasoning `json:"reasoning,omitempty"`
}

// Reasoning is one block of a model's reasoning as its provider returned
// it (Anthropic's extended thinking, Gemini's thoughts and thought
// signatures). A provider that signs its reasoning
// wants it back unchanged with the turn it belongs to before tool results,
// so Delta keeps it whole in the THOUGHT and never shows it to another
// provider.
type Reasoning struct {
	// Type is Anthropic's "thinking" (Text, Signature) or
	// "redacted_thinking" (Data), or Gemini's "thought" (a thought part:
	// Text, Signature) or "thought_signature" (the Signature of the text
	// part, Data empty, or of the function call whose id is Data).
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// ID is the item id of OpenAI's Responses API "reasoning" items: Type
	// "reasoning", Data the encrypted_content to send back (the request
	// stores nothing on OpenAI's side), Text the summary, if any.
	ID string `json:"id,omitempty"`
}

// ToolCall is one function call requested by the model. Arguments is the
// JSON object text exactly as the model produced it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec is a tool as the model sees it: a name, a description and the
// JSON Schema of its arguments object. Every provider sends it as a
// function; lib/tool builds it from a tool definition.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Usage counts the tokens of one response (or a sum of many) as the
// provider reports them. InputTokens is every token of the prompt, cached
// or not; CacheReadTokens and CacheWriteTokens are the parts of it read
// from and written to the provider's prompt cache, which are priced
// differently. OutputTokens is every generated token, the model's
// reasoning included; ReasoningTokens is that part of it.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_input_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_creation_input_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Params are the sampling parameters of agent.yaml's llm block. Nil means
// "not set": the provider's default applies.
type Params struct {
	Model            string   `json:"model"`
	Temperature      *float64 `json:"temperature,omitempty"`
	MaxTokens        *int64   `json:"max_tokens,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	Stop             []string `json:"stop,omitempty"`
	Seed             *int64   `json:"seed,omitempty"`
	// ReasoningEffort is "", "low", "medium" or "high": OpenAI's
	// reasoning_effort, Anthropic's extended-thinking budget.
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
	Extra           map[string]any `json:"extra,omitempty"`
}

// Request is everything one model call needs.
type Request struct {
	Params   Params     `json:"params"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// Turn is the number of model turns this run has already taken (its
	// THOUGHT events). Real providers ignore it; the scripted provider uses
	// it to pick its next answer without keeping state of its own.
	Turn int `json:"-"`
	// OnText, when set, asks for the answer as a stream: the provider
	// calls it with each piece of text as it arrives (for display; the
	// Response still holds the whole answer). A provider that cannot
	// stream ignores it.
	OnText func(delta string) `json:"-"`
}

// Response is the model's turn: text, tool calls, or both, and any
// reasoning the provider returned.
type Response struct {
	// ID is the provider's id of the response, when it gives one.
	ID           string      `json:"id,omitempty"`
	Content      string      `json:"content"`
	ToolCalls    []ToolCall  `json:"tool_calls,omitempty"`
	Reasoning    []Reasoning `json:"reasoning,omitempty"`
	Usage        Usage       `json:"usage"`
	Model        string      `json:"model,omitempty"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

// Provider sends one request to a model and returns its answer. Providers
// retry transient failures themselves; an error returned here is final for
// this call.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrContextOverflow matches (errors.Is) a provider's refusal of a request
// that does not fit the model's context window.
var ErrContextOverflow = errors.New("the request does not fit the model's context window")
