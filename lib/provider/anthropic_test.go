package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

// fakeAnthropic is a minimal Messages API endpoint: it answers queued
// status/body pairs and records request bodies and headers.
type fakeAnthropic struct {
	mu      sync.Mutex
	answers []fakeAnswer
	bodies  []map[string]any
	headers []http.Header
}

type fakeAnswer struct {
	status int
	body   string
}

func newFakeAnthropic(t *testing.T, answers ...fakeAnswer) (*fakeAnthropic, string) {
	f := &fakeAnthropic{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/v1/messages" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, 404)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.headers = append(f.headers, r.Header.Clone())
		if len(f.answers) == 0 {
			f.mu.Unlock()
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"no answer queued"}}`, 500)
			return
		}
		a := f.answers[0]
		f.answers = f.answers[1:]
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

const anthropicToolUse = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
 "content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"ls","input":{"dir":"."}}],
 "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":12}}`

const anthropicText = `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test",
 "content":[{"type":"text","text":"There is a.txt."}],
 "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":80,"output_tokens":6,"cache_read_input_tokens":10}}`

func newAnthropicProvider(t *testing.T, url string) llm.Provider {
	t.Helper()
	p, err := provider.New(agent.LLMConfig{Provider: "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": testKey, "DELTA_BASE_URL": url})
	if err != nil {
		t.Fatalf("New(anthropic): %v", err)
	}
	return p
}

func TestAnthropicToolRoundTrip(t *testing.T) {
	f, url := newFakeAnthropic(t, fakeAnswer{200, anthropicToolUse}, fakeAnswer{200, anthropicText})
	p := newAnthropicProvider(t, url)
	tools := []llm.ToolSpec{{Name: "ls", Description: "List a directory",
		Parameters: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}},"required":["dir"],"additionalProperties":false}`)}}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are terse."},
		{Role: llm.RoleSystem, Content: "Workspace: /w", Name: "ctx"},
		{Role: llm.RoleUser, Content: "what is here?"},
	}
	temp := 0.3
	params := llm.Params{Model: "claude-test", Temperature: &temp, Stop: []string{"END"}}

	got, err := p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatalf("Complete(turn 0): %v", err)
	}
	want := llm.Response{
		Content:      "Let me look.",
		ToolCalls:    []llm.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"dir":"."}`}},
		Usage:        llm.Usage{InputTokens: 50, OutputTokens: 12},
		Model:        "claude-test",
		FinishReason: "tool_calls",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn 0 (-want +got):\n%s", diff)
	}

	// Answer with two tool results (a second, parallel call) and continue.
	msgs = append(msgs,
		llm.Message{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{got.ToolCalls[0], {ID: "toolu_2", Name: "ls", Arguments: `{"dir":"sub"}`}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_1", Content: "a.txt"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_2", Content: ""},
	)
	got, err = p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatalf("Complete(turn 1): %v", err)
	}
	want = llm.Response{Content: "There is a.txt.", Usage: llm.Usage{InputTokens: 90, OutputTokens: 6}, Model: "claude-test", FinishReason: "stop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn 1 (-want +got):\n%s", diff)
	}

	if k := f.headers[0].Get("X-Api-Key"); k != testKey {
		t.Errorf("X-Api-Key = %q, want the ANTHROPIC_API_KEY value", k)
	}
	body := f.bodies[1]
	wantWire := map[string]any{
		"model":          "claude-test",
		"max_tokens":     4096.0,
		"temperature":    0.3,
		"stop_sequences": []any{"END"},
		"system": []any{
			map[string]any{"type": "text", "text": "You are terse."},
			map[string]any{"type": "text", "text": "Workspace: /w"},
		},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "what is here?"}}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Let me look."},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": map[string]any{"dir": "."}},
				map[string]any{"type": "tool_use", "id": "toolu_2", "name": "ls", "input": map[string]any{"dir": "sub"}},
			}},
			// Both results share one user turn.
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "a.txt"}}},
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "(empty)"}}},
			}},
		},
		"tools": []any{map[string]any{
			"name": "ls", "description": "List a directory",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"dir": map[string]any{"type": "string"}},
				"required": []any{"dir"}, "additionalProperties": false},
		}},
	}
	if diff := cmp.Diff(wantWire, body); diff != "" {
		t.Errorf("wire body of turn 1 (-want +got):\n%s", diff)
	}
}

func TestAnthropicErrors(t *testing.T) {
	waits := recordRetries(t)
	_, url := newFakeAnthropic(t,
		fakeAnswer{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		fakeAnswer{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`},
	)
	_, err := newAnthropicProvider(t, url).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("Complete error = %v, want ErrAuth after one retried 529", err)
	}
	for _, want := range []string{"401", "authentication_error", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error %q leaks the key", err)
	}
	if len(waits()) != 1 {
		t.Errorf("waits = %v, want exactly one (the 529)", waits())
	}
}
