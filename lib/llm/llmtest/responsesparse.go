package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// inputItem is one item of a Responses request's input, of any type.
type inputItem struct {
	Type    string          `json:"type"` // "" or "message" for a message
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// function_call and function_call_output
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	// reasoning
	ID      string `json:"id"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
}

// parseResponsesRequest decodes a Responses API body into Delta's model:
// an assistant turn's reasoning, text and function calls (consecutive
// items) become one assistant message, a function_call_output a tool
// message.
func parseResponsesRequest(r *http.Request, body []byte) (Recorded, error) {
	rec, fields, err := recordRequest(r, body)
	if err != nil {
		return rec, err
	}
	var items []inputItem
	if err := decodeField(fields, "input", &items); err != nil {
		return rec, err
	}
	for i, it := range items {
		if err := rec.addItem(it); err != nil {
			return rec, fmt.Errorf("input item %d: %w", i, err)
		}
	}
	var tools []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := decodeField(fields, "tools", &tools); err != nil {
		return rec, err
	}
	for _, t := range tools {
		rec.Tools = append(rec.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	rec.Params = map[string]any{}
	for k, v := range fields {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return rec, fmt.Errorf("field %q: %w", k, err)
		}
		rec.Params[k] = x
	}
	return rec, nil
}

// addItem adds one input item to the recorded messages.
func (rec *Recorded) addItem(it inputItem) error {
	// assistant is the open assistant message the item belongs to.
	assistant := func() *llm.Message {
		if n := len(rec.Messages); n > 0 && rec.Messages[n-1].Role == llm.RoleAssistant {
			return &rec.Messages[n-1]
		}
		rec.Messages = append(rec.Messages, llm.Message{Role: llm.RoleAssistant})
		return &rec.Messages[len(rec.Messages)-1]
	}
	switch it.Type {
	case "", "message":
		text, parts, err := contentOf(it.Content)
		if err != nil {
			return fmt.Errorf("%s message content: %w", it.Role, err)
		}
		if it.Role == llm.RoleAssistant {
			m := assistant()
			m.Content += text
			return nil
		}
		rec.Messages = append(rec.Messages, llm.Message{Role: it.Role, Content: text, Parts: parts})
	case "function_call":
		m := assistant()
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
	case "function_call_output":
		// output is the result's text, or its text and images as parts.
		text, parts, err := contentOf(it.Output)
		if err != nil {
			return fmt.Errorf("function_call_output %s: %w", it.CallID, err)
		}
		rec.Messages = append(rec.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Content: text, Parts: parts})
	case "reasoning":
		var sum []string
		for _, s := range it.Summary {
			sum = append(sum, s.Text)
		}
		m := assistant()
		m.Reasoning = append(m.Reasoning, llm.Reasoning{Type: "reasoning", ID: it.ID, Text: strings.Join(sum, "\n\n"), Data: it.EncryptedContent})
	default:
		return fmt.Errorf("unknown type %q", it.Type)
	}
	return nil
}
