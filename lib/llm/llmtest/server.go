// Package llmtest is a fake OpenAI endpoint for tests: Chat Completions
// (/v1/chat/completions, what every OpenAI-compatible server speaks) and
// the Responses API (/v1/responses), plain and streamed. Tests queue the
// answers the "model" gives, point a provider (or a delta-run binary,
// through DELTA_BASE_URL) at Server.URL, and afterwards inspect what the
// client sent. Both speak the wire shapes of OpenAI's API reference.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// Server is a running fake endpoint. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL including /v1, ready for DELTA_BASE_URL or
	// agent.yaml's llm.base_url.
	URL string

	mu       sync.Mutex
	queue    []reply
	delay    time.Duration
	requests []Recorded
	served   int
}

// reply is one queued answer: a model response, an HTTP error, or a
// dropped connection.
type reply struct {
	resp   llm.Response
	status int // 0: success with resp
	header http.Header
	body   string
	drop   bool
	// cut >= 0 breaks a streamed answer off after that many bytes of
	// text; corrupt sends an event that is not JSON after the first text.
	cut     int
	corrupt bool
}

// NewServer starts a fake server that is closed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/v1"
	return s
}

// Reply queues a model response: text and/or tool calls, with usage. Tool
// calls without an id get "call_N"; empty arguments become "{}".
func (s *Server) Reply(r llm.Response) {
	s.push(reply{resp: r, cut: -1})
}

// ReplyCut queues an answer whose stream breaks off after `after` bytes
// of its text, without its end, like a connection lost mid-answer.
func (s *Server) ReplyCut(r llm.Response, after int) {
	s.push(reply{resp: r, cut: max(0, after)})
}

// ReplyCorrupt queues an answer whose stream has an event that is not
// JSON after its first piece of text. r needs some text.
func (s *Server) ReplyCorrupt(r llm.Response) {
	s.push(reply{resp: r, cut: -1, corrupt: true})
}

// ReplyText queues a text-only answer (finish reason "stop").
func (s *Server) ReplyText(text string) {
	s.Reply(llm.Response{Content: text})
}

// ReplyToolCalls queues an answer made of tool calls (finish reason
// "tool_calls").
func (s *Server) ReplyToolCalls(calls ...llm.ToolCall) {
	s.Reply(llm.Response{ToolCalls: calls})
}

// Fail queues an HTTP error response with the given status and body.
func (s *Server) Fail(status int, body string) {
	s.FailWith(status, nil, body)
}

// FailWith queues an HTTP error response with extra headers, such as
// Retry-After on a 429.
func (s *Server) FailWith(status int, header http.Header, body string) {
	s.push(reply{status: status, header: header, body: body, cut: -1})
}

// Drop queues a broken connection: the server closes the socket without
// answering, which clients see as a network error.
func (s *Server) Drop() {
	s.push(reply{drop: true, cut: -1})
}

// Delay makes every following answer wait d first (or until the client
// gives up), for interrupt and cancellation tests.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Pending reports how many queued answers have not been served yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns what clients sent so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

func (s *Server) push(r reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r)
}

// next records req and pops the next queued answer; ok is false when the
// queue is empty.
func (s *Server) next(rec Recorded) (reply, time.Duration, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
	if len(s.queue) == 0 {
		return reply{}, s.delay, 0, false
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	s.served++
	return r, s.delay, s.served, true
}

// Handler serves POST /v1/chat/completions and /v1/responses (and both
// without /v1), so other tests can mount the fake under their own server.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveCompletion)
	mux.HandleFunc("POST /chat/completions", s.serveCompletion)
	mux.HandleFunc("POST /v1/responses", s.serveResponses)
	mux.HandleFunc("POST /responses", s.serveResponses)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("llmtest: no route for %s %s (only POST /v1/chat/completions and /v1/responses)", r.Method, r.URL.Path), http.StatusNotFound)
	})
	return mux
}

// wait records rec, takes the next queued answer, waits out the delay,
// and answers errors and drops itself; ok says the caller should render
// rep's response.
func (s *Server) wait(w http.ResponseWriter, r *http.Request, rec Recorded) (rep reply, ok bool) {
	rep, delay, _, queued := s.next(rec)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return rep, false
		}
	}
	switch {
	case !queued:
		writeError(w, http.StatusInternalServerError, nil, "llmtest: no response queued")
	case rep.drop:
		dropConnection(w)
	case rep.status != 0:
		writeError(w, rep.status, rep.header, rep.body)
	default:
		return rep, true
	}
	return rep, false
}

// receive reads and parses a request with parse (one per protocol),
// records it and waits for its queued reply; ok is false when the
// request was refused or already answered (an error reply, a hang).
func (s *Server) receive(w http.ResponseWriter, r *http.Request, parse func(*http.Request, []byte) (Recorded, error)) (Recorded, reply, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "llmtest: read request: "+err.Error(), http.StatusBadRequest)
		return Recorded{}, reply{}, false
	}
	rec, err := parse(r, body)
	if err != nil {
		http.Error(w, "llmtest: "+err.Error(), http.StatusBadRequest)
		return Recorded{}, reply{}, false
	}
	rep, ok := s.wait(w, r, rec)
	return rec, rep, ok
}

func (s *Server) serveCompletion(w http.ResponseWriter, r *http.Request) {
	rec, rep, ok := s.receive(w, r, parseRequest)
	if !ok {
		return
	}
	n := s.servedCount()
	switch {
	case rec.Params["stream"] == true:
		writeStream(w, completion(rep.resp, rec.Model, n), rec.Params["stream_options"] != nil, rep)
	case rep.cut >= 0 || rep.corrupt:
		writeError(w, http.StatusBadRequest, nil, "llmtest: a cut or corrupt answer needs a streaming request")
	default:
		writeJSON(w, completion(rep.resp, rec.Model, n))
	}
}

// servedCount is how many answers have been served, for ids.
func (s *Server) servedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// writeStream answers a "stream": true request as OpenAI does: server-sent
// chat.completion.chunk events (the text in pieces of a few characters,
// each tool call in two pieces), a usage chunk when asked for
// (stream_options.include_usage), then [DONE].
func writeStream(w http.ResponseWriter, c map[string]any, usage bool, rep reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	choice := c["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	chunk := func(delta map[string]any, finish any) {
		ch := map[string]any{"id": c["id"], "object": "chat.completion.chunk", "created": c["created"], "model": c["model"],
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		b, _ := json.Marshal(ch)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	text, _ := msg["content"].(string)
	sent := 0
	for _, piece := range pieces(text) {
		if rep.cut >= 0 && sent+len(piece) > rep.cut {
			return
		}
		chunk(map[string]any{"content": piece}, nil)
		sent += len(piece)
		if rep.corrupt {
			io.WriteString(w, "data: bogus, not JSON\n\n")
			return
		}
	}
	if rep.cut >= 0 {
		return
	}
	calls, _ := msg["tool_calls"].([]map[string]any)
	for i, call := range calls {
		fn := call["function"].(map[string]any)
		args := fn["arguments"].(string)
		half := len(args) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": args[:half]}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": args[half:]}}}}, nil)
	}
	chunk(map[string]any{}, choice["finish_reason"])
	if usage {
		b, _ := json.Marshal(map[string]any{"id": c["id"], "object": "chat.completion.chunk", "created": c["created"], "model": c["model"],
			"choices": []any{}, "usage": c["usage"]})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// writeError answers with status; a body that is not JSON is wrapped in
// OpenAI's error envelope so SDKs show its text.
func writeError(w http.ResponseWriter, status int, header http.Header, body string) {
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if !json.Valid([]byte(body)) {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": body, "type": "llmtest_error"}})
		body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "llmtest: encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// dropConnection closes the TCP connection without an HTTP answer.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		writeError(w, http.StatusBadGateway, nil, "llmtest: this connection cannot be dropped (HTTP/2)")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		writeError(w, http.StatusBadGateway, nil, "llmtest: drop connection: "+err.Error())
		return
	}
	conn.Close()
}

// completion renders r as an OpenAI chat.completion object.
func completion(r llm.Response, model string, n int) map[string]any {
	if r.Model != "" {
		model = r.Model
	}
	msg := map[string]any{"role": "assistant", "content": r.Content, "refusal": nil}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		calls := make([]map[string]any, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			id, args := c.ID, c.Arguments
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", n, i)
			}
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			calls[i] = map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": args}}
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
		if r.Content == "" {
			msg["content"] = nil
		}
	}
	if r.FinishReason != "" {
		finish = r.FinishReason
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": map[string]any{
			"prompt_tokens":     r.Usage.InputTokens,
			"completion_tokens": r.Usage.OutputTokens,
			"total_tokens":      r.Usage.InputTokens + r.Usage.OutputTokens,
		},
	}
}
