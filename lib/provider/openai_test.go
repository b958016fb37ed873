package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

const testKey = "sk-test-secret-0123456789"

// recordRetries makes retries instant and returns the waits asked for.
func recordRetries(t testing.TB) func() []time.Duration {
	t.Helper()
	old := provider.DefaultRetry
	var mu sync.Mutex
	var waits []time.Duration
	provider.DefaultRetry.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	t.Cleanup(func() { provider.DefaultRetry = old })
	return func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Duration(nil), waits...)
	}
}

func newOpenAI(t testing.TB, s *llmtest.Server) llm.Provider {
	t.Helper()
	p, err := provider.New(agent.LLMConfig{Provider: "openai", BaseURL: s.URL}, map[string]string{"DELTA_API_KEY": testKey})
	if err != nil {
		t.Fatalf("New(openai): %v", err)
	}
	return p
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func TestOpenAIText(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Reply(llm.Response{Content: "Hello!", Usage: llm.Usage{InputTokens: 12, OutputTokens: 3}})
	got, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{
		Params:   llm.Params{Model: "gpt-test"},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
	})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := llm.Response{ID: "chatcmpl-llmtest-1", Content: "Hello!", Usage: llm.Usage{InputTokens: 12, OutputTokens: 3}, Model: "gpt-test", FinishReason: "stop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Complete mismatch (-want +got):\n%s", diff)
	}
	if h := s.Requests()[0].Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the DELTA_API_KEY bearer", h)
	}
}

func TestOpenAIToolCallsAndWire(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Reply(llm.Response{
		ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "write_file", Arguments: `{"path":"hello.txt","content":"Hello"}`}},
		Usage:     llm.Usage{InputTokens: 40, OutputTokens: 9},
	})
	req := llm.Request{
		Params: llm.Params{
			Model: "gpt-test", Temperature: f64(0.2), MaxTokens: i64(256), TopP: f64(0.9),
			FrequencyPenalty: f64(0.1), PresencePenalty: f64(0.3), Stop: []string{"END"}, Seed: i64(7),
			Extra: map[string]any{"reasoning_effort": "low"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are terse.", Name: "system_prompt"},
			{Role: llm.RoleUser, Content: "list files"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c0", Name: "ls", Arguments: `{"dir":"."}`}}},
			{Role: llm.RoleTool, ToolCallID: "c0", Content: "a.txt"},
		},
		Tools: []llm.ToolSpec{{Name: "write_file", Description: "Write a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	got, err := newOpenAI(t, s).Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := llm.Response{
		ID:           "chatcmpl-llmtest-1",
		ToolCalls:    []llm.ToolCall{{ID: "call_a", Name: "write_file", Arguments: `{"path":"hello.txt","content":"Hello"}`}},
		Usage:        llm.Usage{InputTokens: 40, OutputTokens: 9},
		Model:        "gpt-test",
		FinishReason: "tool_calls",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Complete mismatch (-want +got):\n%s", diff)
	}

	rec := s.Requests()[0]
	if diff := cmp.Diff(req.Messages, rec.Messages); diff != "" {
		t.Errorf("messages on the wire (-sent +received):\n%s", diff)
	}
	// The schema goes out as the agent wrote it, keys in their order.
	if diff := cmp.Diff(req.Tools, rec.Tools); diff != "" {
		t.Errorf("tools on the wire (-want +got):\n%s", diff)
	}
	wantParams := map[string]any{
		"temperature": 0.2, "max_tokens": 256.0, "top_p": 0.9, "frequency_penalty": 0.1,
		"presence_penalty": 0.3, "stop": []any{"END"}, "seed": 7.0, "reasoning_effort": "low",
	}
	if diff := cmp.Diff(wantParams, rec.Params); diff != "" {
		t.Errorf("params on the wire (-want +got):\n%s", diff)
	}
	if rec.Model != "gpt-test" {
		t.Errorf("model on the wire = %q, want gpt-test", rec.Model)
	}
}

func TestOpenAIOmitsUnsetParams(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	if _, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{}, s.Requests()[0].Params); diff != "" {
		t.Errorf("unset params reached the wire (-want +got):\n%s", diff)
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(s *llmtest.Server)
		wantWaits func(t *testing.T, waits []time.Duration)
	}{
		{"500 then success", func(s *llmtest.Server) { s.Fail(500, "boom") }, backoffWaits(1)},
		{"502 and 503 then success", func(s *llmtest.Server) { s.Fail(502, "a"); s.Fail(503, "b") }, backoffWaits(2)},
		{"network error then success", func(s *llmtest.Server) { s.Drop() }, backoffWaits(1)},
		{"429 with Retry-After", func(s *llmtest.Server) {
			s.FailWith(429, http.Header{"Retry-After": {"3"}}, "rate limited")
		}, func(t *testing.T, waits []time.Duration) {
			if diff := cmp.Diff([]time.Duration{3 * time.Second}, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waits := recordRetries(t)
			s := llmtest.NewServer(t)
			tt.setup(s)
			s.ReplyText("finally")
			got, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got.Content != "finally" {
				t.Errorf("Content = %q, want finally", got.Content)
			}
			tt.wantWaits(t, waits())
		})
	}
}

// backoffWaits checks n waits, each within the jittered exponential window.
func backoffWaits(n int) func(t *testing.T, waits []time.Duration) {
	return func(t *testing.T, waits []time.Duration) {
		t.Helper()
		if len(waits) != n {
			t.Fatalf("got %d waits %v, want %d", len(waits), waits, n)
		}
		d := provider.DefaultRetry.Base
		for i, w := range waits {
			if w < d/2 || w > d {
				t.Errorf("wait %d = %v, want within [%v, %v]", i, w, d/2, d)
			}
			d *= 2
		}
	}
}

func TestOpenAIGivesUp(t *testing.T) {
	waits := recordRetries(t)
	s := llmtest.NewServer(t)
	for range 4 {
		s.Fail(503, "overloaded")
	}
	_, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
	var ae *provider.APIError
	if !errors.As(err, &ae) || ae.Status != 503 {
		t.Fatalf("Complete error = %v, want an APIError 503", err)
	}
	if !strings.Contains(err.Error(), "giving up after 4 attempts") || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("error = %q, want the attempt count and the server's message", err)
	}
	if len(s.Requests()) != 4 || len(waits()) != 3 {
		t.Errorf("made %d requests with %d waits, want 4 and 3", len(s.Requests()), len(waits()))
	}
}

func TestOpenAINoRetryOnClientErrors(t *testing.T) {
	tests := []struct {
		status   int
		wantAuth bool
	}{{400, false}, {401, true}, {403, true}, {404, false}}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			waits := recordRetries(t)
			s := llmtest.NewServer(t)
			s.Fail(tt.status, "Incorrect API key provided: "+testKey)
			s.ReplyText("never served")
			_, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			if err == nil {
				t.Fatal("Complete succeeded, want an error")
			}
			if errors.Is(err, provider.ErrAuth) != tt.wantAuth {
				t.Errorf("errors.Is(%v, ErrAuth) = %v, want %v", err, !tt.wantAuth, tt.wantAuth)
			}
			if tt.wantAuth && !strings.Contains(err.Error(), "DELTA_API_KEY") {
				t.Errorf("auth error %q does not name DELTA_API_KEY", err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q leaks the API key", err)
			}
			if n := len(s.Requests()); n != 1 || len(waits()) != 0 {
				t.Errorf("made %d requests and %d waits, want 1 and 0", n, len(waits()))
			}
		})
	}
}

func TestOpenAICancel(t *testing.T) {
	recordRetries(t)
	s := llmtest.NewServer(t)
	s.Delay(time.Minute)
	s.ReplyText("too late")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(s.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := newOpenAI(t, s).Complete(ctx, llm.Request{Params: llm.Params{Model: "m"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Complete error = %v, want context.Canceled", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("made %d requests, want 1 (no retry after cancel)", n)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     agent.LLMConfig
		env     map[string]string
		wantErr error
		wantMsg []string
	}{
		{"openai without key", agent.LLMConfig{}, nil, provider.ErrNoAPIKey, []string{"DELTA_API_KEY", ".env", "scripted"}},
		{"anthropic without key", agent.LLMConfig{Provider: "anthropic"}, map[string]string{"OPENAI_API_KEY": "x"}, provider.ErrNoAPIKey, []string{"DELTA_API_KEY", "ANTHROPIC_API_KEY"}},
		{"unknown provider", agent.LLMConfig{Provider: "mistral"}, nil, provider.ErrUnknownProvider, []string{`"mistral"`, "openai, openai-compatible, anthropic, gemini, scripted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.New(tt.cfg, tt.env)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("New error = %v, want %v", err, tt.wantErr)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("New error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestOpenAIKeyAndURLFromEnv(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	// OPENAI_* are the fallbacks when DELTA_* are unset.
	p, err := provider.New(agent.LLMConfig{}, map[string]string{"OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	if h := s.Requests()[0].Header.Get("Authorization"); h != "Bearer sk-openai" {
		t.Errorf("Authorization = %q, want Bearer sk-openai", h)
	}
}

func BenchmarkOpenAIRoundTrip(b *testing.B) {
	s := llmtest.NewServer(b)
	p := newOpenAI(b, s)
	req := llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	for b.Loop() {
		s.ReplyText("hello")
		if _, err := p.Complete(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRetryFromEnv(t *testing.T) {
	waits := recordRetries(t)
	s := llmtest.NewServer(t)
	s.Fail(500, "a")
	s.Fail(500, "b")
	s.ReplyText("never reached with two attempts")
	p, err := provider.New(agent.LLMConfig{BaseURL: s.URL}, map[string]string{
		"DELTA_API_KEY": testKey, provider.EnvRetryAttempts: "2", provider.EnvRetryBase: "10ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
	if err == nil || !strings.Contains(err.Error(), "giving up after 2 attempts") {
		t.Fatalf("Complete error = %v, want giving up after 2 attempts", err)
	}
	if w := waits(); len(w) != 1 || w[0] < 5*time.Millisecond || w[0] > 10*time.Millisecond {
		t.Errorf("waits = %v, want one within [5ms, 10ms]", w)
	}

	for _, env := range []map[string]string{{provider.EnvRetryAttempts: "zero"}, {provider.EnvRetryBase: "soon"}} {
		env["DELTA_API_KEY"] = testKey
		if _, err := provider.New(agent.LLMConfig{}, env); err == nil {
			t.Errorf("New(%v) accepted a bad retry setting", env)
		}
	}
}

func TestRetryCancelDuringBackoff(t *testing.T) {
	old := provider.DefaultRetry
	t.Cleanup(func() { provider.DefaultRetry = old })
	ctx, cancel := context.WithCancel(context.Background())
	// The real sleep, with a long base: only cancellation can end it.
	provider.DefaultRetry.Base = time.Hour
	provider.DefaultRetry.Max = time.Hour
	s := llmtest.NewServer(t)
	s.Fail(503, "busy")
	p := newOpenAI(t, s)
	go func() {
		for len(s.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := p.Complete(ctx, llm.Request{Params: llm.Params{Model: "m"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Complete error = %v, want context.Canceled", err)
	}
}

// TestRetryNotify: a caller that asked (WithRetryNotify) hears of every
// retry with the failed attempt, the wait and the reason.
func TestRetryNotify(t *testing.T) {
	waits := recordRetries(t)
	s := llmtest.NewServer(t)
	s.Fail(500, "boom")
	s.Fail(503, "busy")
	s.ReplyText("ok")
	var heard []provider.RetryEvent
	ctx := provider.WithRetryNotify(context.Background(), func(ev provider.RetryEvent) { heard = append(heard, ev) })
	if _, err := newOpenAI(t, s).Complete(ctx, llm.Request{Params: llm.Params{Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	w := waits()
	if len(heard) != 2 || len(w) != 2 {
		t.Fatalf("heard %d retries, %d waits, want 2", len(heard), len(w))
	}
	for i, ev := range heard {
		var ae *provider.APIError
		if ev.Attempt != i+1 || ev.Attempts != provider.DefaultRetry.Attempts || ev.Wait != w[i] || !errors.As(ev.Err, &ae) {
			t.Errorf("retry %d = %+v", i, ev)
		}
	}
	if !strings.Contains(heard[1].Err.Error(), "503") {
		t.Errorf("second retry's reason = %v, want the 503", heard[1].Err)
	}
}

// TestOpenAIStreaming: with OnText the answer is streamed: the text
// arrives in pieces, and the response (text, tool calls, usage, id) is the
// one a plain call gives.
func TestOpenAIStreaming(t *testing.T) {
	s := llmtest.NewServer(t)
	want := llm.Response{ID: "chatcmpl-llmtest-1", Content: "Hello, streaming wörld!",
		ToolCalls:    []llm.ToolCall{{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}},
		Usage:        llm.Usage{InputTokens: 12, OutputTokens: 7},
		Model:        "gpt-test",
		FinishReason: "tool_calls",
	}
	s.Reply(want)
	var pieces []string
	got, err := newOpenAI(t, s).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "gpt-test"},
		Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(d string) { pieces = append(pieces, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streamed response (-want +got):\n%s", diff)
	}
	if len(pieces) < 2 || strings.Join(pieces, "") != want.Content {
		t.Errorf("text pieces = %q, want the content in several pieces", pieces)
	}
	body := s.Requests()[0].Params
	if body["stream"] != true || body["stream_options"] == nil {
		t.Errorf("request params = %v, want stream and stream_options", body)
	}
}
