package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// anthropicAnswer renders r as a Messages API Message object: thinking
// blocks first, then text, then tool_use blocks.
func anthropicAnswer(r llm.Response, model any, n int, u llm.Usage) map[string]any {
	var content []any
	for _, th := range r.Reasoning {
		switch th.Type {
		case "thinking":
			content = append(content, map[string]any{"type": "thinking", "thinking": th.Text, "signature": th.Signature})
		case "redacted_thinking":
			content = append(content, map[string]any{"type": "redacted_thinking", "data": th.Data})
		}
	}
	if r.Content != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Content})
	}
	stop := "end_turn"
	for i, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", n, i)
		}
		var input any = map[string]any{}
		if strings.TrimSpace(c.Arguments) != "" {
			json.Unmarshal([]byte(c.Arguments), &input)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": input})
		stop = "tool_use"
	}
	if r.Model != "" {
		model = r.Model
	}
	return map[string]any{"id": fmt.Sprintf("msg_llmtest_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens,
			"cache_read_input_tokens":     u.CacheReadTokens,
			"cache_creation_input_tokens": u.CacheWriteTokens,
			"output_tokens":               u.OutputTokens,
		}}
}

// writeAnthropicStream streams msg as the API does: message_start with
// the input usage, each block started, its content in deltas (text in
// pieces of a few characters, tool input and thinking in two pieces, the
// signature last), stopped, then message_delta with the stop reason and
// output tokens, and message_stop. A ping comes after message_start.
func writeAnthropicStream(w http.ResponseWriter, msg map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	usage := msg["usage"].(map[string]any)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	start["usage"] = map[string]any{"input_tokens": usage["input_tokens"], "cache_read_input_tokens": usage["cache_read_input_tokens"],
		"cache_creation_input_tokens": usage["cache_creation_input_tokens"], "output_tokens": 1}
	event("message_start", map[string]any{"message": start})
	event("ping", map[string]any{})
	content, _ := msg["content"].([]any)
	for i, c := range content {
		b := c.(map[string]any)
		delta := func(d map[string]any) { event("content_block_delta", map[string]any{"index": i, "delta": d}) }
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range splitPieces(b["text"].(string), 4) {
				delta(map[string]any{"type": "text_delta", "text": piece})
			}
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			for _, piece := range splitPieces(string(in), max(1, (len(in)+1)/2)) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": piece})
			}
		case "thinking":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
			text := b["thinking"].(string)
			for _, piece := range splitPieces(text, max(1, (len(text)+1)/2)) {
				delta(map[string]any{"type": "thinking_delta", "thinking": piece})
			}
			delta(map[string]any{"type": "signature_delta", "signature": b["signature"]})
		default:
			event("content_block_start", map[string]any{"index": i, "content_block": b})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage["output_tokens"]}})
	event("message_stop", map[string]any{})
}

// splitPieces cuts s into pieces of n bytes, never inside a UTF-8 sequence.
func splitPieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(len(s), n)
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
