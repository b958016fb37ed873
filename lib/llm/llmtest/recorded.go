package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// Recorded is one request a client sent, parsed back into Delta's model so
// tests can compare it with what they expected.
type Recorded struct {
	Path     string
	Header   http.Header // includes Authorization
	Body     json.RawMessage
	Model    string
	Messages []llm.Message
	Tools    []llm.ToolSpec
	// Params holds every other top-level field of the body (temperature,
	// max_tokens, stop, extra fields …) as decoded JSON.
	Params map[string]any
}

// wireMessage is an OpenAI chat message as it travels.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// recordRequest starts the record of a request whose body is a JSON
// object with a model, as both OpenAI protocols' are, and returns the
// body's fields for the protocol's own parser.
func recordRequest(r *http.Request, body []byte) (Recorded, map[string]json.RawMessage, error) {
	rec := Recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: append(json.RawMessage(nil), body...)}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return rec, nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	if err := decodeField(fields, "model", &rec.Model); err != nil {
		return rec, nil, err
	}
	return rec, fields, nil
}

// parseRequest decodes a chat completions body.
func parseRequest(r *http.Request, body []byte) (Recorded, error) {
	rec, fields, err := recordRequest(r, body)
	if err != nil {
		return rec, err
	}
	var msgs []wireMessage
	if err := decodeField(fields, "messages", &msgs); err != nil {
		return rec, err
	}
	for _, m := range msgs {
		lm, err := m.message()
		if err != nil {
			return rec, err
		}
		rec.Messages = append(rec.Messages, lm)
	}
	var tools []wireTool
	if err := decodeField(fields, "tools", &tools); err != nil {
		return rec, err
	}
	for _, t := range tools {
		rec.Tools = append(rec.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
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

// decodeField decodes and removes fields[name] when present.
func decodeField(fields map[string]json.RawMessage, name string, v any) error {
	raw, ok := fields[name]
	if !ok {
		return nil
	}
	delete(fields, name)
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("field %q: %w", name, err)
	}
	return nil
}

func (m wireMessage) message() (llm.Message, error) {
	text, err := contentText(m.Content)
	if err != nil {
		return llm.Message{}, fmt.Errorf("%s message content: %w", m.Role, err)
	}
	lm := llm.Message{Role: m.Role, Content: text, Name: m.Name, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return lm, nil
}

// contentText accepts content as a string, null, or an array of text parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}
