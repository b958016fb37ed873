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
	// Content is a *string, absent from an assistant message that only
	// calls tools, or the []chatPart of a user message with images.
	Content    any            `json:"content,omitempty"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// chatPart is one content part of a user message: text, or an image as
// a data URL.
type chatPart struct {
	Type     string     `json:"type"` // text, image_url
	Text     *string    `json:"text,omitempty"`
	ImageURL *chatImage `json:"image_url,omitempty"`
}

type chatImage struct {
	URL string `json:"url"`
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
		if len(m.Parts) > 0 {
			out.Content = chatParts(m)
		}
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

// chatParts is the content of a user message with images: its text,
// then each image (Chat Completions takes no sound but an audio model's
// own, which llm.InputsOf does not list).
func chatParts(m *llm.Message) []chatPart {
	var parts []chatPart
	if m.Content != "" {
		parts = append(parts, chatPart{Type: "text", Text: &m.Content})
	}
	for _, p := range m.Parts {
		if p.Type == llm.PartImage {
			parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImage{URL: dataURL(p)}})
		}
	}
	return parts
}

// chatToolImages moves the images of tool results into a user message
// after the results of the same turn: in Chat Completions a tool
// message's content is text only, and the results of one assistant turn
// must follow it with nothing in between, so the images come right after
// the last of them, each introduced by the call it belongs to. msgs is
// returned as it is when no tool result has an image.
func chatToolImages(msgs []llm.Message) []llm.Message {
	if !toolHasParts(msgs) {
		return msgs
	}
	out := make([]llm.Message, 0, len(msgs)+1)
	var pending llm.Message
	flush := func() {
		if len(pending.Parts) > 0 {
			out = append(out, pending)
		}
		pending = llm.Message{}
	}
	for i := range msgs {
		m := msgs[i]
		if m.Role != llm.RoleTool {
			flush()
			out = append(out, m)
			continue
		}
		if len(m.Parts) > 0 {
			if pending.Role == "" {
				pending = llm.Message{Role: llm.RoleUser}
			}
			if pending.Content != "" {
				pending.Content += "\n"
			}
			pending.Content += fmt.Sprintf("The image(s) of the result of tool call %s:", m.ToolCallID)
			pending.Parts = append(pending.Parts, m.Parts...)
			m.Parts = nil
		}
		out = append(out, m)
	}
	flush()
	return out
}

func toolHasParts(msgs []llm.Message) bool {
	for i := range msgs {
		if msgs[i].Role == llm.RoleTool && len(msgs[i].Parts) > 0 {
			return true
		}
	}
	return false
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
