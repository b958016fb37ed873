package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/llm"
)

// The fake of OpenAI's Responses API (POST /v1/responses). It shares the
// queue of answers with the chat completions fake: a test queues
// llm.Responses and points the client at whichever protocol it speaks.
// Reasoning of Type "reasoning" in a queued answer becomes a reasoning
// output item (ID as its id, Data as its encrypted_content, Text as its
// summary), and comes back parsed from the next request's input.

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request) {
	rec, rep, ok := s.receive(w, r, parseResponsesRequest)
	if !ok {
		return
	}
	obj := responseObject(rep.resp, rec.Model, s.servedCount())
	switch {
	case rec.Params["stream"] == true:
		writeResponsesStream(w, obj, rep)
	case rep.cut >= 0 || rep.corrupt:
		writeError(w, http.StatusBadRequest, nil, "llmtest: a cut or corrupt answer needs a streaming request")
	default:
		writeJSON(w, obj)
	}
}

// responseObject renders r as a Responses API response object.
func responseObject(r llm.Response, model string, n int) map[string]any {
	if r.Model != "" {
		model = r.Model
	}
	var out []any
	for i, rs := range r.Reasoning {
		id := rs.ID
		if id == "" {
			id = fmt.Sprintf("rs_%d_%d", n, i)
		}
		summary := []any{}
		if rs.Text != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": rs.Text})
		}
		out = append(out, map[string]any{"type": "reasoning", "id": id, "summary": summary, "encrypted_content": rs.Data})
	}
	if r.Content != "" {
		out = append(out, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": r.Content, "annotations": []any{}}}})
	}
	for i, c := range r.ToolCalls {
		id, args := c.ID, c.Arguments
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, i)
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i), "status": "completed",
			"call_id": id, "name": c.Name, "arguments": args})
	}
	status, incomplete := "completed", any(nil)
	if r.FinishReason == "length" {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	return map[string]any{
		"id": fmt.Sprintf("resp_llmtest_%d", n), "object": "response", "created_at": 1700000000, "status": status,
		"model": model, "output": out, "incomplete_details": incomplete, "error": nil,
		"usage": map[string]any{
			"input_tokens":          r.Usage.InputTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": 0},
			"output_tokens":         r.Usage.OutputTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          r.Usage.InputTokens + r.Usage.OutputTokens,
		},
	}
}

// writeResponsesStream answers a streaming request as OpenAI does: each
// output item added, its text or arguments in pieces, done; then
// response.completed with the whole response. A cut answer stops after
// that many bytes of text; a corrupt one sends an event that is not JSON
// after its first text.
func writeResponsesStream(w http.ResponseWriter, obj map[string]any, rep reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(fields)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	inProgress := map[string]any{}
	for k, v := range obj {
		inProgress[k] = v
	}
	inProgress["status"], inProgress["output"] = "in_progress", []any{}
	send("response.created", map[string]any{"response": inProgress})
	sent := 0
	for i, it := range obj["output"].([]any) {
		item := it.(map[string]any)
		send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		switch item["type"] {
		case "message":
			text := item["content"].([]any)[0].(map[string]any)["text"].(string)
			for _, piece := range pieces(text) {
				if rep.cut >= 0 && sent+len(piece) > rep.cut {
					return
				}
				send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": piece})
				sent += len(piece)
				if rep.corrupt {
					io.WriteString(w, "data: bogus, not JSON\n\n")
					return
				}
			}
			send("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": i, "content_index": 0, "text": text})
		case "function_call":
			args := item["arguments"].(string)
			half := len(args) / 2
			for _, d := range []string{args[:half], args[half:]} {
				send("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": i, "delta": d})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": i, "arguments": args})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	if rep.cut >= 0 {
		return
	}
	typ := "response.completed"
	if obj["status"] == "incomplete" {
		typ = "response.incomplete"
	}
	send(typ, map[string]any{"response": obj})
}

// pieces splits text into pieces of a few bytes, whole runes each.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(len(text), 4)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}
