package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// Gemini is a fake Gemini API endpoint: POST
// /v1beta/models/MODEL:generateContent and
// :streamGenerateContent?alt=sse. Answers are queued as llm.Responses;
// their Reasoning becomes Gemini's parts: "thought" a thought part with
// its signature, "thought_signature" the signature of the text part (Data
// empty) or of the function call whose id is Data.
type Gemini struct {
	// URL is the base URL with the API version (…/v1beta), for
	// GEMINI_BASE_URL or llm.base_url.
	URL string

	mu       sync.Mutex
	queue    []reply
	requests []GeminiRequest
}

// GeminiRequest is one request the fake received.
type GeminiRequest struct {
	Model  string // from the path
	Stream bool   // streamGenerateContent?alt=sse
	Header http.Header
	Body   map[string]any
}

// NewGemini starts a fake Gemini endpoint closed when the test ends.
func NewGemini(t testing.TB) *Gemini {
	t.Helper()
	s := &Gemini{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/{call}", s.serve)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/v1beta"
	return s
}

// Reply queues an answer. A zero r.Usage is counted by the fake (the
// request's JSON length over four, the answer's likewise); otherwise it is
// reported as given: InputTokens as promptTokenCount, CacheReadTokens as
// cachedContentTokenCount, ReasoningTokens as thoughtsTokenCount and the
// rest of OutputTokens as candidatesTokenCount.
func (s *Gemini) Reply(r llm.Response) { s.push(reply{resp: r}) }

// Fail queues an HTTP error answer.
func (s *Gemini) Fail(status int, body string) { s.push(reply{status: status, body: body}) }

func (s *Gemini) push(r reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r)
}

// Requests returns what clients sent so far, in order.
func (s *Gemini) Requests() []GeminiRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]GeminiRequest(nil), s.requests...)
}

func (s *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	stream := method == "streamGenerateContent"
	if method != "generateContent" && !(stream && r.URL.Query().Get("alt") == "sse") {
		geminiFail(w, 404, "NOT_FOUND", "llmtest: unknown method "+method)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		geminiFail(w, 400, "INVALID_ARGUMENT", "llmtest: request body is not JSON: "+err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, GeminiRequest{Model: model, Stream: stream, Header: r.Header.Clone(), Body: body})
	n := len(s.requests)
	if len(s.queue) == 0 {
		s.mu.Unlock()
		geminiFail(w, 500, "INTERNAL", "llmtest: no answer queued")
		return
	}
	rep := s.queue[0]
	s.queue = s.queue[1:]
	s.mu.Unlock()
	if rep.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		w.Write([]byte(rep.body))
		return
	}
	enc, _ := json.Marshal(body)
	parts, usage := geminiAnswer(rep.resp, n, int64(len(enc)/4))
	if !stream {
		writeJSON(w, geminiChunk(parts, "STOP", usage, model, n))
		return
	}
	writeGeminiStream(w, parts, usage, model, n)
}

// geminiAnswer renders r as model parts and usageMetadata.
func geminiAnswer(r llm.Response, n int, prompt int64) ([]map[string]any, map[string]any) {
	var parts []map[string]any
	textSig, callSig := "", map[string]string{}
	for _, th := range r.Reasoning {
		switch th.Type {
		case "thought":
			parts = append(parts, map[string]any{"text": th.Text, "thought": true, "thoughtSignature": th.Signature})
		case "thought_signature":
			if th.Data == "" {
				textSig = th.Signature
			} else {
				callSig[th.Data] = th.Signature
			}
		}
	}
	if r.Content != "" || textSig != "" {
		p := map[string]any{"text": r.Content}
		if textSig != "" {
			p["thoughtSignature"] = textSig
		}
		parts = append(parts, p)
	}
	for _, c := range r.ToolCalls {
		var args any = map[string]any{}
		if strings.TrimSpace(c.Arguments) != "" {
			json.Unmarshal([]byte(c.Arguments), &args)
		}
		call := map[string]any{"name": c.Name, "args": args}
		if c.ID != "" { // Gemini often gives no id: the client names the call
			call["id"] = c.ID
		}
		p := map[string]any{"functionCall": call}
		if sig := callSig[c.ID]; sig != "" {
			p["thoughtSignature"] = sig
		}
		parts = append(parts, p)
	}
	u := r.Usage
	if u == (llm.Usage{}) {
		out, _ := json.Marshal(parts)
		u = llm.Usage{InputTokens: max(1, prompt), OutputTokens: int64(max(1, len(out)/4))}
	}
	usage := map[string]any{"promptTokenCount": u.InputTokens, "candidatesTokenCount": u.OutputTokens - u.ReasoningTokens,
		"totalTokenCount": u.InputTokens + u.OutputTokens}
	if u.CacheReadTokens > 0 {
		usage["cachedContentTokenCount"] = u.CacheReadTokens
	}
	if u.ReasoningTokens > 0 {
		usage["thoughtsTokenCount"] = u.ReasoningTokens
	}
	return parts, usage
}

// geminiChunk is a GenerateContentResponse holding parts; finish and
// usage are left out when empty or nil.
func geminiChunk(parts []map[string]any, finish string, usage map[string]any, model string, n int) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	c := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": fmt.Sprintf("resp_llmtest_%d", n)}
	if usage != nil {
		c["usageMetadata"] = usage
	}
	return c
}

// writeGeminiStream streams the parts as Gemini does: thoughts, then the
// text in pieces of a few characters (its signature on the last piece),
// each function call whole, then a last chunk with the finish reason and
// the usage.
func writeGeminiStream(w http.ResponseWriter, parts []map[string]any, usage map[string]any, model string, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(c map[string]any) {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for _, p := range parts {
		text, isText := p["text"].(string)
		if !isText || p["thought"] == true {
			send(geminiChunk([]map[string]any{p}, "", nil, model, n))
			continue
		}
		ps := splitPieces(text, 4)
		if len(ps) == 0 {
			ps = []string{""}
		}
		for i, piece := range ps {
			q := map[string]any{"text": piece}
			if sig, ok := p["thoughtSignature"]; ok && i == len(ps)-1 {
				q["thoughtSignature"] = sig
			}
			send(geminiChunk([]map[string]any{q}, "", nil, model, n))
		}
	}
	send(geminiChunk([]map[string]any{{"text": ""}}, "STOP", usage, model, n))
}

func geminiFail(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
	w.Write(b)
}
