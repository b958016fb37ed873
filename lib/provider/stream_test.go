package provider_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

// Which protocol a configuration speaks: the Responses API only on
// OpenAI's own endpoint (or when llm.api says so), Chat Completions for
// any other base URL and for openai-compatible.
func TestAPIChoice(t *testing.T) {
	tests := []struct {
		name string
		cfg  agent.LLMConfig
		env  map[string]string
		path string
	}{
		{"custom base URL", agent.LLMConfig{Provider: "openai"}, map[string]string{"DELTA_BASE_URL": "URL"}, "/v1/chat/completions"},
		{"custom base URL, api responses", agent.LLMConfig{Provider: "openai", API: "responses"}, map[string]string{"DELTA_BASE_URL": "URL"}, "/v1/responses"},
		{"openai-compatible", agent.LLMConfig{Provider: "openai-compatible"}, map[string]string{"OPENAI_BASE_URL": "URL"}, "/v1/chat/completions"},
		{"openai-compatible, api responses", agent.LLMConfig{Provider: "openai-compatible", API: "responses", BaseURL: "URL"}, nil, "/v1/responses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t)
			s.ReplyText("hi")
			if tt.cfg.BaseURL == "URL" {
				tt.cfg.BaseURL = s.URL
			}
			for k, v := range tt.env {
				if v == "URL" {
					tt.env[k] = s.URL
				}
			}
			p, err := provider.New(tt.cfg, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			if err != nil || got.Content != "hi" {
				t.Fatalf("Complete = %+v, %v", got, err)
			}
			if path := s.Requests()[0].Path; path != tt.path {
				t.Errorf("request went to %s, want %s", path, tt.path)
			}
		})
	}
	if _, err := provider.New(agent.LLMConfig{Provider: "openai-compatible"}, map[string]string{"DELTA_API_KEY": "k"}); err == nil || !strings.Contains(err.Error(), "DELTA_BASE_URL") {
		t.Errorf("openai-compatible without a URL: %v, want an error naming DELTA_BASE_URL", err)
	}
}

// TestChatRequestContract compares a Chat Completions body with one
// written from OpenAI's API reference: tool calls on the assistant
// message, one tool message per result, function tools, streaming with
// usage.
func TestChatRequestContract(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	_, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "llama3", ReasoningEffort: "high"},
		Messages: conversation, Tools: tools, OnText: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
	  "model": "llama3",
	  "messages": [
	    {"role": "system", "content": "Be brief.", "name": "sys"},
	    {"role": "user", "content": "List and count."},
	    {"role": "assistant", "content": "Looking.", "tool_calls": [
	      {"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\":\".\"}"}},
	      {"id": "call_b", "type": "function", "function": {"name": "wc", "arguments": "{}"}}]},
	    {"role": "tool", "content": "a.txt", "tool_call_id": "call_a"},
	    {"role": "tool", "content": "error: wc: not found", "tool_call_id": "call_b"}
	  ],
	  "tools": [
	    {"type": "function", "function": {"name": "ls", "description": "List a directory.", "parameters": {"type":"object","properties":{"dir":{"type":"string"}}}}},
	    {"type": "function", "function": {"name": "wc", "parameters": {"type":"object","properties":{}}}}
	  ],
	  "reasoning_effort": "high",
	  "stream": true,
	  "stream_options": {"include_usage": true}
	}`
	jsonEqual(t, "request body", []byte(want), s.Requests()[0].Body)
}

// A chat stream with text, two parallel calls split across chunks, the
// usage in a last chunk without choices, comments and CRLF line ends.
const chatStream = "data: {\"id\":\"c1\",\"model\":\"llama3\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\r\n\r\n" +
	": OPENROUTER PROCESSING\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi \"},\"finish_reason\":null}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"there\"},\"finish_reason\":null}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"d\"}}]},\"finish_reason\":null}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"wc\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ir\\\":1}\"}}]},\"finish_reason\":null}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\r\n\r\n" +
	"data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":9,\"total_tokens\":49,\"prompt_tokens_details\":{\"cached_tokens\":32}}}\r\n\r\n" +
	"data: [DONE]\r\n\r\n"

func TestChatStreamContract(t *testing.T) {
	srv := streamServer(t, chatStream)
	p, err := provider.New(agent.LLMConfig{Provider: "openai-compatible", BaseURL: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	got, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "llama3"}, OnText: func(d string) { text.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{ID: "c1", Model: "llama3", Content: "Hi there", FinishReason: "tool_calls",
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"dir":1}`}, {ID: "call_2", Name: "wc", Arguments: "{}"}},
		Usage:     llm.Usage{InputTokens: 40, OutputTokens: 9}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded stream (-want +got):\n%s", diff)
	}
	if text.String() != "Hi there" {
		t.Errorf("OnText got %q", text.String())
	}
}

// Broken and corrupt streams, on both protocols: the attempt fails with a
// StreamError naming the endpoint and holding the text that arrived, and
// is retried; the retry's answer is the result.
func TestBrokenStreamsRetried(t *testing.T) {
	for _, api := range []string{"chat", "responses"} {
		for _, kind := range []string{"cut", "corrupt"} {
			t.Run(api+"/"+kind, func(t *testing.T) {
				recordRetries(t)
				s := llmtest.NewServer(t)
				answer := llm.Response{Content: "The answer is forty-two."}
				if kind == "cut" {
					s.ReplyCut(answer, 10)
				} else {
					s.ReplyCorrupt(answer)
				}
				s.ReplyText("Again: 42.")
				p, err := provider.New(agent.LLMConfig{Provider: "openai", API: api, BaseURL: s.URL}, nil)
				if err != nil {
					t.Fatal(err)
				}
				var retries []provider.RetryEvent
				ctx := provider.WithRetryNotify(context.Background(), func(ev provider.RetryEvent) { retries = append(retries, ev) })
				got, err := p.Complete(ctx, llm.Request{Params: llm.Params{Model: "m"}, OnText: func(string) {}})
				if err != nil || got.Content != "Again: 42." {
					t.Fatalf("Complete = %q, %v, want the retry's answer", got.Content, err)
				}
				if len(retries) != 1 {
					t.Fatalf("%d retries, want 1", len(retries))
				}
				var se *provider.StreamError
				if !errors.As(retries[0].Err, &se) {
					t.Fatalf("retry error = %v, want a StreamError", retries[0].Err)
				}
				if se.Partial.Content == "" || !strings.HasPrefix(answer.Content, se.Partial.Content) {
					t.Errorf("partial text = %q, want the start of %q", se.Partial.Content, answer.Content)
				}
				msg := se.Error()
				if !strings.Contains(msg, s.URL) {
					t.Errorf("error %q does not name the endpoint", msg)
				}
				if kind == "corrupt" && !strings.Contains(msg, "is corrupt") {
					t.Errorf("error %q does not say the answer is corrupt", msg)
				}
			})
		}
	}
}

// When every attempt breaks, the final error still holds the partial
// answer (errors.As), so the caller can keep its text.
func TestBrokenStreamGivesUpWithPartial(t *testing.T) {
	recordRetries(t)
	s := llmtest.NewServer(t)
	for range 2 {
		s.ReplyCut(llm.Response{Content: "Partial answer here."}, 8)
	}
	p, err := provider.New(agent.LLMConfig{Provider: "openai", BaseURL: s.URL}, map[string]string{provider.EnvRetryAttempts: "2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, OnText: func(string) {}})
	var se *provider.StreamError
	if !errors.As(err, &se) || se.Partial.Content != "Partial " {
		t.Fatalf("Complete error = %v, want a StreamError with the partial text %q", err, "Partial ")
	}
	if !strings.Contains(err.Error(), "giving up after 2 attempts") {
		t.Errorf("error %q does not say it gave up", err)
	}
}

// The stream time limits: an endpoint that sends nothing fails on the
// first-byte limit, one that stops mid-stream on the idle limit; each
// error names its setting, and the attempt is retried.
func TestStreamTimeLimits(t *testing.T) {
	tests := []struct {
		name    string
		first   string // what the server sends before hanging
		setting string
	}{
		{"first byte", "", "llm.first_byte_timeout_ms"},
		{"idle", ": thinking\n\n", "llm.idle_timeout_ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recordRetries(t)
			done := make(chan struct{})
			requests := make(chan struct{}, 10)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				requests <- struct{}{}
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, tt.first)
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-done:
				}
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(done) })
			ms := int64(50)
			p, err := provider.New(agent.LLMConfig{Provider: "openai", BaseURL: srv.URL, API: "responses", FirstByteTimeoutMS: &ms, IdleTimeoutMS: &ms},
				map[string]string{provider.EnvRetryAttempts: "2"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			var te *provider.TimeoutError
			if !errors.As(err, &te) || te.Setting != tt.setting {
				t.Fatalf("Complete error = %v, want a TimeoutError of %s", err, tt.setting)
			}
			if !strings.Contains(err.Error(), tt.setting) || !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %q does not name the setting and the endpoint", err)
			}
			if len(requests) != 2 {
				t.Errorf("%d requests, want 2 (a timed-out stream is retried)", len(requests))
			}
		})
	}
}

func TestStreamTimeoutsFromEnv(t *testing.T) {
	_, err := provider.New(agent.LLMConfig{Provider: "openai", BaseURL: "http://127.0.0.1:1"}, map[string]string{provider.EnvIdleTimeout: "soon"})
	if err == nil || !strings.Contains(err.Error(), provider.EnvIdleTimeout) {
		t.Errorf("New with a bad %s: %v, want an error naming it", provider.EnvIdleTimeout, err)
	}
}

// retry-after-ms and Retry-After (seconds or an HTTP date) set the wait.
func TestRetryAfterHeaders(t *testing.T) {
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.header), func(t *testing.T) {
			waits := recordRetries(t)
			s := llmtest.NewServer(t)
			s.FailWith(http.StatusTooManyRequests, tt.header, "slow down")
			s.ReplyText("ok")
			if _, err := newResponses(t, s.URL).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}}); err != nil {
				t.Fatal(err)
			}
			if got := waits(); len(got) != 1 || got[0] != tt.want {
				t.Errorf("waits = %v, want [%v]", got, tt.want)
			}
		})
	}
}

// 529 (overloaded) and 503 are retried on the Responses API too; an
// HTTP context overflow is llm.ErrContextOverflow and not retried.
func TestResponsesHTTPErrors(t *testing.T) {
	recordRetries(t)
	s := llmtest.NewServer(t)
	s.Fail(529, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`)
	s.Fail(http.StatusServiceUnavailable, "busy")
	s.ReplyText("ok")
	s.Fail(http.StatusBadRequest, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}`)
	p := newResponses(t, s.URL)
	if got, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}}); err != nil || got.Content != "ok" {
		t.Fatalf("Complete = %q, %v, want ok after two retries", got.Content, err)
	}
	_, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
	if !errors.Is(err, llm.ErrContextOverflow) {
		t.Fatalf("Complete error = %v, want llm.ErrContextOverflow", err)
	}
	if s.Pending() != 0 || len(s.Requests()) != 4 {
		t.Errorf("%d requests, want 4", len(s.Requests()))
	}
}
