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
		ID:           "msg_1",
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
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_2", Content: "", IsError: true},
	)
	got, err = p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatalf("Complete(turn 1): %v", err)
	}
	want = llm.Response{ID: "msg_2", Content: "There is a.txt.", Usage: llm.Usage{InputTokens: 90, OutputTokens: 6, CacheReadTokens: 10}, Model: "claude-test", FinishReason: "stop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn 1 (-want +got):\n%s", diff)
	}

	if k := f.headers[0].Get("X-Api-Key"); k != testKey {
		t.Errorf("X-Api-Key = %q, want the ANTHROPIC_API_KEY value", k)
	}
	if v := f.headers[0].Get("Anthropic-Version"); v != "2023-06-01" {
		t.Errorf("anthropic-version = %q, want 2023-06-01", v)
	}
	// The expected body, written from the Messages API reference: tool
	// results answering one turn share a user turn, a failed one says
	// is_error, and cache breakpoints sit on the last tool, the last
	// system block and the two newest user turns.
	wantWire := `{
	  "model": "claude-test", "max_tokens": 4096, "temperature": 0.3, "stop_sequences": ["END"],
	  "system": [
	    {"type": "text", "text": "You are terse."},
	    {"type": "text", "text": "Workspace: /w", "cache_control": {"type": "ephemeral"}}
	  ],
	  "messages": [
	    {"role": "user", "content": [{"type": "text", "text": "what is here?", "cache_control": {"type": "ephemeral"}}]},
	    {"role": "assistant", "content": [
	      {"type": "text", "text": "Let me look."},
	      {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"dir": "."}},
	      {"type": "tool_use", "id": "toolu_2", "name": "ls", "input": {"dir": "sub"}}
	    ]},
	    {"role": "user", "content": [
	      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "a.txt"}]},
	      {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [{"type": "text", "text": "(empty)"}],
	       "cache_control": {"type": "ephemeral"}}
	    ]}
	  ],
	  "tools": [{
	    "name": "ls", "description": "List a directory", "cache_control": {"type": "ephemeral"},
	    "input_schema": {"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"], "additionalProperties": false}
	  }]
	}`
	if diff := cmp.Diff(decodeJSON(t, wantWire), f.bodies[1]); diff != "" {
		t.Errorf("wire body of turn 1 (-want +got):\n%s", diff)
	}
}

// decodeJSON is the JSON text s as maps and slices, for comparing bodies.
func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("expected JSON is not valid: %v\n%s", err, s)
	}
	return m
}

// TestAnthropicCacheOff: with llm.cache: false no breakpoint is sent.
func TestAnthropicCacheOff(t *testing.T) {
	f, url := newFakeAnthropic(t, fakeAnswer{200, anthropicText})
	off := false
	p, err := provider.New(agent.LLMConfig{Provider: "anthropic", Cache: &off}, map[string]string{"ANTHROPIC_API_KEY": testKey, "DELTA_BASE_URL": url})
	if err != nil {
		t.Fatal(err)
	}
	tools := []llm.ToolSpec{{Name: "ls"}}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "s"}, {Role: llm.RoleUser, Content: "hi"}}
	if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: msgs, Tools: tools}); err != nil {
		t.Fatal(err)
	}
	want := decodeJSON(t, `{"model": "m", "max_tokens": 4096, "system": [{"type": "text", "text": "s"}],
	  "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
	  "tools": [{"name": "ls", "input_schema": {"type": "object", "properties": {}}}]}`)
	if diff := cmp.Diff(want, f.bodies[0]); diff != "" {
		t.Errorf("body with llm.cache: false (-want +got):\n%s", diff)
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

const anthropicThinkingToolUse = `{"id":"msg_t1","type":"message","role":"assistant","model":"claude-test",
 "content":[{"type":"thinking","thinking":"The user wants a listing.","signature":"c2lnLTE="},
  {"type":"redacted_thinking","data":"ZW5jcnlwdGVk"},
  {"type":"tool_use","id":"toolu_1","name":"ls","input":{"dir":"."}}],
 "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":40}}`

// TestAnthropicThinking: reasoning_effort becomes an extended-thinking
// budget (max_tokens raised above it), thinking blocks come back as
// Reasoning with the response id, and sent back first in their turn,
// byte for byte, so a tool loop with thinking on goes on.
func TestAnthropicThinking(t *testing.T) {
	f, url := newFakeAnthropic(t, fakeAnswer{200, anthropicThinkingToolUse}, fakeAnswer{200, anthropicText})
	p := newAnthropicProvider(t, url)
	params := llm.Params{Model: "claude-test", ReasoningEffort: "medium"}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "what is here?"}}
	got, err := p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	wantReasoning := []llm.Reasoning{
		{Type: "thinking", Text: "The user wants a listing.", Signature: "c2lnLTE="},
		{Type: "redacted_thinking", Data: "ZW5jcnlwdGVk"},
	}
	if got.ID != "msg_t1" || got.Content != "" || len(got.ToolCalls) != 1 {
		t.Errorf("response = %+v", got)
	}
	if diff := cmp.Diff(wantReasoning, got.Reasoning); diff != "" {
		t.Errorf("reasoning (-want +got):\n%s", diff)
	}
	msgs = append(msgs,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: got.ToolCalls, Reasoning: got.Reasoning},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_1", Content: "a.txt"})
	if _, err := p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	for i, body := range f.bodies {
		if diff := cmp.Diff(map[string]any{"type": "enabled", "budget_tokens": 8192.0}, body["thinking"]); diff != "" {
			t.Errorf("request %d thinking (-want +got):\n%s", i, diff)
		}
		if body["max_tokens"] != 8192.0+4096 {
			t.Errorf("request %d max_tokens = %v, want the budget plus 4096", i, body["max_tokens"])
		}
	}
	assistant := f.bodies[1]["messages"].([]any)[1]
	wantTurn := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "thinking", "thinking": "The user wants a listing.", "signature": "c2lnLTE="},
		map[string]any{"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": map[string]any{"dir": "."}},
	}}
	if diff := cmp.Diff(wantTurn, assistant); diff != "" {
		t.Errorf("assistant turn sent back (-want +got):\n%s", diff)
	}
}

// TestAnthropicThinkingNeedsRoom: a max_tokens that leaves no room beyond
// the thinking budget is refused before any request, saying what to do.
func TestAnthropicThinkingNeedsRoom(t *testing.T) {
	f, url := newFakeAnthropic(t)
	p := newAnthropicProvider(t, url)
	max := int64(4000)
	_, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "claude-test", ReasoningEffort: "medium", MaxTokens: &max},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "raise max_tokens or lower reasoning_effort") {
		t.Errorf("err = %v, want the max_tokens advice", err)
	}
	if len(f.bodies) != 0 {
		t.Errorf("%d requests sent, want none", len(f.bodies))
	}
}

// TestAnthropicLargeMaxTokens: a large max_tokens is sent without
// streaming (Anthropic's SDK refused it, guessing the answer would take
// over 10 minutes): the request's own timeout is llm.timeout_ms.
func TestAnthropicLargeMaxTokens(t *testing.T) {
	f, url := newFakeAnthropic(t, fakeAnswer{200, anthropicText})
	p := newAnthropicProvider(t, url)
	max := int64(64000)
	if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "claude-test", MaxTokens: &max},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatalf("max_tokens 64000: %v", err)
	}
	if len(f.bodies) != 1 || f.bodies[0]["max_tokens"] != 64000.0 {
		t.Errorf("bodies = %v", f.bodies)
	}
}

// anthropicSSE is a streamed Messages answer: thinking (with its
// signature), text in two pieces, a tool call with its input in two
// pieces, and the usage.
const anthropicSSE = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_s1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":1}}}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"U0lH"}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":0}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Looking "}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"now."}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":1}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"dir\":"}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\".\"}"}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":2}` + "\n\n" +
	"event: message_delta\n" +
	`data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":25}}` + "\n\n" +
	"event: message_stop\n" +
	`data: {"type":"message_stop"}` + "\n\n"

// TestAnthropicStreaming: with OnText the Messages call streams; the text
// arrives in pieces and the events add up to the whole answer, thinking
// and tool input included.
func TestAnthropicStreaming(t *testing.T) {
	var gotStream any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		gotStream = body["stream"]
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicSSE)
	}))
	defer srv.Close()
	var pieces []string
	got, err := newAnthropicProvider(t, srv.URL).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "claude-test"},
		Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(d string) { pieces = append(pieces, d) }})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{ID: "msg_s1", Content: "Looking now.",
		ToolCalls:    []llm.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"dir":"."}`}},
		Reasoning:    []llm.Reasoning{{Type: "thinking", Text: "Let me see.", Signature: "U0lH"}},
		Usage:        llm.Usage{InputTokens: 30, OutputTokens: 25},
		Model:        "claude-test",
		FinishReason: "tool_calls",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streamed response (-want +got):\n%s", diff)
	}
	if strings.Join(pieces, "|") != "Looking |now." || gotStream != true {
		t.Errorf("pieces %q, stream %v", pieces, gotStream)
	}
}
