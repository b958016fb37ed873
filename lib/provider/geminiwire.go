package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// The generateContent request body, written from the API reference
// (https://ai.google.dev/api/generate-content,
// https://ai.google.dev/gemini-api/docs/function-calling,
// https://ai.google.dev/gemini-api/docs/thought-signatures).

type geminiRequest struct {
	SystemInstruction *geminiContent   `json:"systemInstruction,omitempty"`
	Contents          []geminiContent  `json:"contents"`
	Tools             []geminiTools    `json:"tools,omitempty"`
	GenerationConfig  *geminiGenConfig `json:"generationConfig,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is one part of either direction: text (a thought when
// Thought is set), a function call or a function's response; a part the
// model signed carries its thoughtSignature, to be sent back on the same
// part.
type geminiPart struct {
	Text             *string       `json:"text,omitempty"`
	Thought          bool          `json:"thought,omitempty"`
	FunctionCall     *geminiCall   `json:"functionCall,omitempty"`
	FunctionResponse *geminiResult `json:"functionResponse,omitempty"`
	InlineData       *geminiBlob   `json:"inlineData,omitempty"`
	ThoughtSignature string        `json:"thoughtSignature,omitempty"`
}

// geminiBlob is inline media: an image or a sound.
type geminiBlob struct {
	MimeType string `json:"mimeType"`
	Data     []byte `json:"data"` // encoding/json writes it in base64
}

// geminiResponsePart is media inside a functionResponse (Gemini 3's
// multimodal function responses).
type geminiResponsePart struct {
	InlineData *geminiBlob `json:"inlineData"`
}

type geminiCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// geminiResult is a function's answer: {"output": text}, or {"error":
// text} for a call that failed, as the function-calling guide advises.
type geminiResult struct {
	ID       string               `json:"id,omitempty"`
	Name     string               `json:"name"`
	Response map[string]string    `json:"response"`
	Parts    []geminiResponsePart `json:"parts,omitempty"`
}

type geminiTools struct {
	FunctionDeclarations []geminiFunction `json:"functionDeclarations"`
}

type geminiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type geminiGenConfig struct {
	Temperature      *float64              `json:"temperature,omitempty"`
	TopP             *float64              `json:"topP,omitempty"`
	MaxOutputTokens  *int64                `json:"maxOutputTokens,omitempty"`
	StopSequences    []string              `json:"stopSequences,omitempty"`
	Seed             *int64                `json:"seed,omitempty"`
	PresencePenalty  *float64              `json:"presencePenalty,omitempty"`
	FrequencyPenalty *float64              `json:"frequencyPenalty,omitempty"`
	ThinkingConfig   *geminiThinkingConfig `json:"thinkingConfig,omitempty"`
}

type geminiThinkingConfig struct {
	ThinkingBudget  int64 `json:"thinkingBudget"`
	IncludeThoughts bool  `json:"includeThoughts"`
}

// geminiBody encodes req: system messages become systemInstruction,
// assistant turns "model" contents with their thought parts and
// signatures as received, tool results functionResponse parts (named
// after the call they answer), and contents of one role in a row are
// merged (the responses to parallel calls go in one turn). Tool schemas
// lose the keywords Gemini refuses. llm.Params.Extra is merged into the
// top level.
func geminiBody(req llm.Request) ([]byte, error) {
	sp := req.Params
	body := geminiRequest{}
	gc := geminiGenConfig{Temperature: sp.Temperature, TopP: sp.TopP, MaxOutputTokens: sp.MaxTokens, StopSequences: sp.Stop,
		Seed: sp.Seed, PresencePenalty: sp.PresencePenalty, FrequencyPenalty: sp.FrequencyPenalty}
	if sp.ReasoningEffort != "" {
		budget, ok := geminiThinkingBudget[sp.ReasoningEffort]
		if !ok {
			return nil, fmt.Errorf("unknown reasoning_effort %q (low, medium or high)", sp.ReasoningEffort)
		}
		gc.ThinkingConfig = &geminiThinkingConfig{ThinkingBudget: budget, IncludeThoughts: true}
	}
	if gc.Temperature != nil || gc.TopP != nil || gc.MaxOutputTokens != nil || len(gc.StopSequences) > 0 || gc.Seed != nil ||
		gc.PresencePenalty != nil || gc.FrequencyPenalty != nil || gc.ThinkingConfig != nil {
		body.GenerationConfig = &gc
	}
	names := map[string]string{} // call id → function name
	// late are the media of the current turn's function responses that
	// go after all of them (see geminiParts).
	var late []geminiPart
	endTurn := func() {
		if n := len(body.Contents); n > 0 && len(late) > 0 {
			body.Contents[n-1].Parts = append(body.Contents[n-1].Parts, late...)
		}
		late = nil
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == llm.RoleSystem {
			if m.Content != "" {
				if body.SystemInstruction == nil {
					body.SystemInstruction = &geminiContent{}
				}
				body.SystemInstruction.Parts = append(body.SystemInstruction.Parts, geminiText(m.Content))
			}
			continue
		}
		role, parts, err := geminiParts(m, names)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		n := len(body.Contents)
		if m.Role != llm.RoleTool || n == 0 || body.Contents[n-1].Role != role {
			endTurn()
		}
		if m.Role == llm.RoleTool {
			var after []geminiPart
			parts, after = placeMedia(parts, geminiMediaInResponse(sp.Model))
			late = append(late, after...)
		}
		if n > 0 && body.Contents[n-1].Role == role {
			body.Contents[n-1].Parts = append(body.Contents[n-1].Parts, parts...)
			continue
		}
		body.Contents = append(body.Contents, geminiContent{Role: role, Parts: parts})
	}
	endTurn()
	if len(req.Tools) > 0 {
		var decls []geminiFunction
		for _, t := range plainTools(req.Tools) {
			schema := t.Parameters
			if len(schema) == 0 || string(schema) == "null" {
				schema = emptySchema
			}
			decls = append(decls, geminiFunction{Name: t.Name, Description: t.Description, Parameters: schema})
		}
		body.Tools = []geminiTools{{FunctionDeclarations: decls}}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return withExtra(b, sp.Extra)
}

func geminiText(s string) geminiPart {
	s = nonEmpty(s)
	return geminiPart{Text: &s}
}

// geminiParts are the parts of one message, and its role.
func geminiParts(m *llm.Message, names map[string]string) (string, []geminiPart, error) {
	switch m.Role {
	case llm.RoleUser:
		return "user", append([]geminiPart{geminiText(m.Content)}, geminiMedia(m.Parts)...), nil
	case llm.RoleTool:
		res := &geminiResult{ID: m.ToolCallID, Name: names[m.ToolCallID], Response: map[string]string{"output": m.Content}}
		if m.IsError {
			res.Response = map[string]string{"error": m.Content}
		}
		if res.Name == "" {
			return "", nil, fmt.Errorf("tool result %q answers no function call of an earlier turn", m.ToolCallID)
		}
		return "user", append([]geminiPart{{FunctionResponse: res}}, geminiMedia(m.Parts)...), nil
	case llm.RoleAssistant:
		return "model", modelParts(m, names), nil
	default:
		return "", nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

// geminiMedia are parts as inlineData parts.
func geminiMedia(parts []llm.Part) []geminiPart {
	var out []geminiPart
	for _, p := range parts {
		out = append(out, geminiPart{InlineData: &geminiBlob{MimeType: p.MediaType, Data: p.Data}})
	}
	return out
}

// geminiMediaInResponse reports whether model takes a function's images
// inside its functionResponse (parts), which Gemini 3 models do; older
// models get them as inlineData parts of the same turn, after all of its
// function responses (a turn of function responses must answer the calls
// before anything else), and sounds always go that way.
func geminiMediaInResponse(model string) bool {
	return strings.HasPrefix(strings.TrimPrefix(model, "models/"), "gemini-3")
}

// placeMedia splits the parts of a tool result (its functionResponse,
// then its media) into the part that goes with the other responses, its
// images inside it when inResponse, and the media that go after them.
func placeMedia(parts []geminiPart, inResponse bool) (head, after []geminiPart) {
	fr := parts[0]
	for _, p := range parts[1:] {
		if inResponse && strings.HasPrefix(p.InlineData.MimeType, "image/") {
			res := *fr.FunctionResponse
			res.Parts = append(res.Parts, geminiResponsePart{InlineData: p.InlineData})
			fr.FunctionResponse = &res
			continue
		}
		after = append(after, p)
	}
	return []geminiPart{fr}, after
}

// modelParts rebuilds a model turn as Gemini gave it: thought parts
// first, then the text, then the function calls, each signature back on
// the part it came with.
func modelParts(m *llm.Message, names map[string]string) []geminiPart {
	var parts []geminiPart
	textSig, callSig := "", map[string]string{}
	for _, r := range m.Reasoning {
		switch r.Type {
		case "thought":
			parts = append(parts, geminiPart{Text: &r.Text, Thought: true, ThoughtSignature: r.Signature})
		case "thought_signature":
			if r.Data == "" {
				textSig = r.Signature
			} else {
				callSig[r.Data] = r.Signature
			}
		}
	}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		p := geminiText(m.Content)
		p.ThoughtSignature = textSig
		parts = append(parts, p)
	}
	for _, c := range m.ToolCalls {
		names[c.ID] = c.Name
		parts = append(parts, geminiPart{FunctionCall: &geminiCall{ID: c.ID, Name: c.Name, Args: toolInput(c.Arguments)},
			ThoughtSignature: callSig[c.ID]})
	}
	return parts
}
