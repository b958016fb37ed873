package provider

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/lib/llm"
)

// The chat completions request body, encoded with plain structs and
// encoding/json. (The SDK Delta once used marshalled through a reflective
// encoder that checked every field for "omitted" and "null" markers: for a
// long run's request, hundreds of messages re-sent every iteration, that
// cost about a millisecond per model call.)

type chatRequest struct {
	Model            string        `json:"model"`
	Messages         []chatMessage `json:"messages"`
	Tools            []chatTool    `json:"tools,omitempty"`
	Temperature      *float64      `json:"temperature,omitempty"`
	MaxTokens        *int64        `json:"max_tokens,omitempty"`
	TopP             *float64      `json:"top_p,omitempty"`
	FrequencyPenalty *float64      `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64      `json:"presence_penalty,omitempty"`
	Stop             []string      `json:"stop,omitempty"`
	Seed             *int64        `json:"seed,omitempty"`
	ReasoningEffort  string        `json:"reasoning_effort,omitempty"`
	Stream           bool          `json:"stream,omitempty"`
	StreamOptions    *streamOpts   `json:"stream_options,omitempty"`
}

// streamOpts asks a streaming endpoint for the usage in a last chunk.
type streamOpts struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is absent from an assistant message that only calls tools.
	Content    *string        `json:"content,omitempty"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function chatToolDef `json:"function"`
}

type chatToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema is the schema of a tool that declares none: an object
// without properties.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func chatMessageOf(m *llm.Message) (chatMessage, error) {
	out := chatMessage{Role: m.Role, Content: &m.Content, ToolCallID: m.ToolCallID}
	switch m.Role {
	case llm.RoleSystem:
		out.Name = m.Name
	case llm.RoleUser:
	case llm.RoleTool:
	case llm.RoleAssistant:
		if m.Content == "" && len(m.ToolCalls) > 0 {
			out.Content = nil
		}
		for _, c := range m.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, chatToolCall{ID: c.ID, Type: "function", Function: chatFunction{Name: c.Name, Arguments: argsOrEmpty(c.Arguments)}})
		}
	default:
		return chatMessage{}, fmt.Errorf("unknown role %q", m.Role)
	}
	return out, nil
}

// schemaOf is a tool's JSON Schema as sent: an absent schema means an
// object without properties; anything but an object is refused.
func schemaOf(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return emptySchema, nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, fmt.Errorf("parameters schema is not a JSON object")
	}
	return trimmed, nil
}
