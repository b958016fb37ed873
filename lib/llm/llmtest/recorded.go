package llmtest

import (
	"encoding/base64"
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
	text, parts, err := contentOf(m.Content)
	if err != nil {
		return llm.Message{}, fmt.Errorf("%s message content: %w", m.Role, err)
	}
	lm := llm.Message{Role: m.Role, Content: text, Parts: parts, Name: m.Name, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return lm, nil
}

// contentOf accepts content as a string, null, or an array of parts:
// text parts (Chat Completions' text, the Responses API's input_text and
// output_text) make the text, image parts (image_url's {url}, input_image's
// image_url, both data: URLs) the message's parts.
func contentOf(raw json.RawMessage) (string, []llm.Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil, nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		ImageURL json.RawMessage `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var media []llm.Part
	for _, p := range parts {
		switch p.Type {
		case "image_url", "input_image":
			var url string
			var obj struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(p.ImageURL, &url) != nil {
				if err := json.Unmarshal(p.ImageURL, &obj); err != nil {
					return "", nil, fmt.Errorf("%s part: %w", p.Type, err)
				}
				url = obj.URL
			}
			part, err := dataURLPart(url)
			if err != nil {
				return "", nil, fmt.Errorf("%s part: %w", p.Type, err)
			}
			media = append(media, part)
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String(), media, nil
}

// dataURLPart decodes a data:MEDIA;base64,DATA URL into an image part.
func dataURLPart(url string) (llm.Part, error) {
	rest, ok := strings.CutPrefix(url, "data:")
	media, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return llm.Part{}, fmt.Errorf("image URL %.40q is not a base64 data: URL", url)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return llm.Part{}, fmt.Errorf("image data: %w", err)
	}
	return llm.Part{Type: llm.PartImage, MediaType: media, Data: raw}, nil
}
