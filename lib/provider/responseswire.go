package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// The request body of OpenAI's Responses API (POST {base}/responses).
//
// The conversation is sent whole every time and nothing is stored on
// OpenAI's side ("store": false): a continued or forked run needs no
// server state. Reasoning crosses turns as the encrypted reasoning items
// the API returns ("include": ["reasoning.encrypted_content"]), kept in
// the THOUGHT's reasoning and sent back before the turn's text and calls.

type responsesRequest struct {
	Model           string              `json:"model"`
	Input           []json.RawMessage   `json:"input"` // null: spliced in by spliceArray
	Tools           []responsesTool     `json:"tools,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	TopP            *float64            `json:"top_p,omitempty"`
	MaxOutputTokens *int64              `json:"max_output_tokens,omitempty"`
	Reasoning       *responsesReasoning `json:"reasoning,omitempty"`
	Store           bool                `json:"store"`
	Include         []string            `json:"include,omitempty"`
	Stream          bool                `json:"stream"`
}

type responsesReasoning struct {
	Effort string `json:"effort,omitempty"`
}

// responsesTool is a function tool. Strict is sent as false: the API's
// strict mode wants every property required and no additional ones,
// which Delta's tool schemas do not promise.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// Input items: messages, the model's earlier function calls and reasoning,
// and the calls' outputs.
type (
	inputMessage struct {
		Role string `json:"role"`
		// Content is the text, or the []inputPart of a message with
		// images.
		Content any `json:"content"`
	}
	// inputPart is one part of a message's or a function output's
	// content: input_text, or input_image with a data URL.
	inputPart struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		ImageURL string `json:"image_url,omitempty"`
		Detail   string `json:"detail,omitempty"`
	}
	inputFunctionCall struct {
		Type      string `json:"type"` // function_call
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	inputFunctionOutput struct {
		Type   string `json:"type"` // function_call_output
		CallID string `json:"call_id"`
		// Output is the text, or the []inputPart of a result with images.
		Output any `json:"output"`
	}
	reasoningItem struct {
		Type             string        `json:"type"` // reasoning
		ID               string        `json:"id"`
		Summary          []summaryText `json:"summary"`
		EncryptedContent string        `json:"encrypted_content,omitempty"`
	}
	summaryText struct {
		Type string `json:"type"` // summary_text
		Text string `json:"text"`
	}
)

// reasoningType is llm.Reasoning's Type for a Responses reasoning item.
const reasoningType = "reasoning"

// inputField is how the request encodes without its input items.
var inputField = []byte(`,"input":null`)

// responsesBody encodes req as a Responses API request body; cache works
// as for openAIBody.
func responsesBody(req llm.Request, cache *messageCache) ([]byte, error) {
	sp := req.Params
	body := responsesRequest{Model: sp.Model, Temperature: sp.Temperature, TopP: sp.TopP,
		MaxOutputTokens: sp.MaxTokens, Stream: true}
	if sp.ReasoningEffort != "" {
		body.Reasoning = &responsesReasoning{Effort: sp.ReasoningEffort}
	}
	if sp.ReasoningEffort != "" || reasoningModel(sp.Model) {
		body.Include = []string{"reasoning.encrypted_content"}
	}
	for _, t := range req.Tools {
		schema, err := schemaOf(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: schema})
	}
	head, err := encodeJSON(body)
	if err != nil {
		return nil, err
	}
	encs, err := cache.encode(req.Messages, encodeItems)
	if err != nil {
		return nil, err
	}
	return spliceArray(head, inputField, encs)
}

// reasoningModel reports whether model is one of OpenAI's reasoning
// models, whose reasoning is worth asking for even without an effort.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// encodeItems is the input items of one message, comma-separated: an
// assistant turn is its reasoning items, its text and its calls, in the
// order the API produced them.
func encodeItems(m *llm.Message) ([]byte, error) {
	var items []any
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		items = append(items, inputMessage{Role: m.Role, Content: inputContent(m)})
	case llm.RoleTool:
		items = append(items, inputFunctionOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: inputContent(m)})
	case llm.RoleAssistant:
		for _, r := range m.Reasoning {
			if r.Type != reasoningType || r.Data == "" {
				continue // another provider's, or nothing to send back
			}
			it := reasoningItem{Type: reasoningType, ID: r.ID, Summary: []summaryText{}, EncryptedContent: r.Data}
			if r.Text != "" {
				it.Summary = append(it.Summary, summaryText{Type: "summary_text", Text: r.Text})
			}
			items = append(items, it)
		}
		if m.Content != "" {
			items = append(items, inputMessage{Role: m.Role, Content: m.Content})
		}
		for _, c := range m.ToolCalls {
			items = append(items, inputFunctionCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: argsOrEmpty(c.Arguments)})
		}
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return joinItems(items)
}

// inputContent is a message's text, or with images its text and images
// as parts (a function_call_output's output takes the same parts as a
// message's content).
func inputContent(m *llm.Message) any {
	if len(m.Parts) == 0 {
		return m.Content
	}
	var parts []inputPart
	if m.Content != "" {
		parts = append(parts, inputPart{Type: "input_text", Text: m.Content})
	}
	for _, p := range m.Parts {
		if p.Type == llm.PartImage {
			parts = append(parts, inputPart{Type: "input_image", ImageURL: dataURL(p), Detail: "auto"})
		}
	}
	return parts
}

// joinItems encodes items, comma-separated.
func joinItems(items []any) ([]byte, error) {
	var out []byte
	for i, it := range items {
		b, err := encodeJSON(it)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return out, nil
}
