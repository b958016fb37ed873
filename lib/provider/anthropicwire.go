package provider

import (
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/lib/llm"
)

// The Messages request body, written from the API reference
// (https://docs.anthropic.com/en/api/messages).

type anthropicRequest struct {
	Model         string             `json:"model"`
	MaxTokens     int64              `json:"max_tokens"`
	System        []anthropicBlock   `json:"system,omitempty"`
	Messages      []anthropicMessage `json:"messages"`
	Tools         []anthropicTool    `json:"tools,omitempty"`
	Temperature   *float64           `json:"temperature,omitempty"`
	TopP          *float64           `json:"top_p,omitempty"`
	StopSequences []string           `json:"stop_sequences,omitempty"`
	Thinking      *anthropicThinking `json:"thinking,omitempty"`
	Stream        bool               `json:"stream,omitempty"`
}

type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int64  `json:"budget_tokens"`
}

// anthropicBlock is one content block of either direction: text,
// tool_use, tool_result, thinking, redacted_thinking, image.
type anthropicBlock struct {
	Type      string           `json:"type"`
	Text      *string          `json:"text,omitempty"`
	ID        string           `json:"id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Input     json.RawMessage  `json:"input,omitempty"`
	ToolUseID string           `json:"tool_use_id,omitempty"`
	Content   []anthropicBlock `json:"content,omitempty"`
	IsError   bool             `json:"is_error,omitempty"`
	Thinking  *string          `json:"thinking,omitempty"`
	Signature *string          `json:"signature,omitempty"`
	Data      string           `json:"data,omitempty"`
	Source    *anthropicSource `json:"source,omitempty"`
	Cache     *cacheControl    `json:"cache_control,omitempty"`
}

// anthropicSource is an image block's data, inline.
type anthropicSource struct {
	Type      string `json:"type"` // base64
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // encoding/json writes it in base64
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	Cache       *cacheControl   `json:"cache_control,omitempty"`
}

// cacheControl marks a prompt-caching breakpoint: the prefix up to and
// including the block it is on is cached (for five minutes, refreshed on
// every hit).
type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// anthropicBody encodes req: system messages go to the system field, tool
// calls and results become tool_use/tool_result blocks, and messages of
// the same role in a row share one turn (the API wants the tool results
// answering one assistant turn in a single user turn). Frequency and
// presence penalties and seed have no Anthropic equivalent and are not
// sent; llm.Params.Extra is merged into the top level. With cache, prompt
// caching breakpoints are placed (see placeBreakpoints).
func anthropicBody(req llm.Request, cache bool) ([]byte, error) {
	sp := req.Params
	body := anthropicRequest{Model: sp.Model, MaxTokens: anthropicDefaultMaxTokens, Temperature: sp.Temperature,
		TopP: sp.TopP, StopSequences: sp.Stop, Stream: req.OnText != nil}
	if sp.MaxTokens != nil {
		body.MaxTokens = *sp.MaxTokens
	}
	if sp.ReasoningEffort != "" {
		budget, ok := anthropicThinkingBudget[sp.ReasoningEffort]
		if !ok {
			return nil, fmt.Errorf("unknown reasoning_effort %q (low, medium or high)", sp.ReasoningEffort)
		}
		if sp.MaxTokens == nil {
			body.MaxTokens = budget + anthropicDefaultMaxTokens
		} else if body.MaxTokens <= budget {
			return nil, fmt.Errorf("llm.max_tokens (%d) must be larger than the thinking budget of reasoning_effort %s (%d tokens): raise max_tokens or lower reasoning_effort", body.MaxTokens, sp.ReasoningEffort, budget)
		}
		body.Thinking = &anthropicThinking{Type: "enabled", BudgetTokens: budget}
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == llm.RoleSystem {
			if m.Content != "" {
				body.System = append(body.System, textBlock(m.Content))
			}
			continue
		}
		role, blocks, err := anthropicBlocks(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if n := len(body.Messages); n > 0 && body.Messages[n-1].Role == role {
			body.Messages[n-1].Content = append(body.Messages[n-1].Content, blocks...)
			continue
		}
		body.Messages = append(body.Messages, anthropicMessage{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		body.Tools = append(body.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if cache {
		placeBreakpoints(&body)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return withExtra(b, sp.Extra)
}

// placeBreakpoints marks up to four cache breakpoints, the API's limit:
// the last tool (the tools are the start of the prompt), the last system
// block, and the last block of the two newest user turns. Each request
// then writes its whole prefix to the cache, and the next one, which
// extends it by one assistant turn and one user turn, finds the previous
// request's prefix at its second-newest breakpoint even when that turn
// added more blocks than the API looks back over (20).
func placeBreakpoints(body *anthropicRequest) {
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].Cache = ephemeral
	}
	if n := len(body.System); n > 0 {
		body.System[n-1].Cache = ephemeral
	}
	marked := 0
	for i := len(body.Messages) - 1; i >= 0 && marked < 2; i-- {
		m := &body.Messages[i]
		if m.Role != "user" || len(m.Content) == 0 {
			continue
		}
		m.Content[len(m.Content)-1].Cache = ephemeral
		marked++
	}
}

func textBlock(s string) anthropicBlock {
	s = nonEmpty(s)
	return anthropicBlock{Type: "text", Text: &s}
}

func anthropicBlocks(m *llm.Message) (string, []anthropicBlock, error) {
	switch m.Role {
	case llm.RoleUser:
		return "user", withImages([]anthropicBlock{textBlock(m.Content)}, m.Parts), nil
	case llm.RoleTool:
		// A tool_result's content takes image blocks beside its text.
		return "user", []anthropicBlock{{Type: "tool_result", ToolUseID: m.ToolCallID,
			Content: withImages([]anthropicBlock{textBlock(m.Content)}, m.Parts), IsError: m.IsError}}, nil
	case llm.RoleAssistant:
		// Thinking blocks come first, exactly as received: the API checks
		// their signatures and wants them before the tool_use they led to.
		var blocks []anthropicBlock
		for _, r := range m.Reasoning {
			switch r.Type {
			case "thinking":
				blocks = append(blocks, anthropicBlock{Type: r.Type, Thinking: &r.Text, Signature: &r.Signature})
			case "redacted_thinking":
				blocks = append(blocks, anthropicBlock{Type: r.Type, Data: r.Data})
			}
		}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			blocks = append(blocks, textBlock(m.Content))
		}
		for _, c := range m.ToolCalls {
			blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: toolInput(c.Arguments)})
		}
		return "assistant", blocks, nil
	default:
		return "", nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

// withImages appends an image block for each image of parts.
func withImages(blocks []anthropicBlock, parts []llm.Part) []anthropicBlock {
	for _, p := range parts {
		if p.Type == llm.PartImage {
			blocks = append(blocks, anthropicBlock{Type: "image", Source: &anthropicSource{Type: "base64", MediaType: p.MediaType, Data: p.Data}})
		}
	}
	return blocks
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
