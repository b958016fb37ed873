package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

func newGeminiProvider(t *testing.T, url string) llm.Provider {
	t.Helper()
	p, err := provider.New(agent.LLMConfig{Provider: "gemini"}, map[string]string{"GEMINI_API_KEY": testKey, "GEMINI_BASE_URL": url})
	if err != nil {
		t.Fatalf("New(gemini): %v", err)
	}
	return p
}

// geminiTurn is a model turn as Gemini gives it: a thought, text with a
// signature, and two parallel calls, the first signed, the second without
// an id.
var geminiTurn = llm.Response{Content: "Listing.", ToolCalls: []llm.ToolCall{
	{ID: "fc_1", Name: "ls", Arguments: `{"dir":"."}`}, {Name: "pwd", Arguments: `{}`}},
	Reasoning: []llm.Reasoning{{Type: "thought", Text: "Two calls.", Signature: "c2lnLXQ="},
		{Type: "thought_signature", Signature: "c2lnLXR4dA=="}, {Type: "thought_signature", Signature: "c2lnLWZj", Data: "fc_1"}},
	Usage: llm.Usage{InputTokens: 1000, OutputTokens: 70, CacheReadTokens: 600, ReasoningTokens: 50}}

// TestGeminiContract: a tool loop with thinking against the fake, plain
// and streamed: the answer decodes into the same llm.Response (thought
// signatures kept, usageMetadata mapped), and the next request, compared
// with a body written from the API reference, sends every signature back
// on its part, the results of both calls in one turn (the failed one as
// {"error": …}), the tools without the schema keywords Gemini refuses,
// and thinkingConfig from reasoning_effort.
func TestGeminiContract(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := llmtest.NewGemini(t)
		s.Reply(geminiTurn)
		s.Reply(llm.Response{Content: "Done."})
		p := newGeminiProvider(t, s.URL)
		temp, maxTok := 0.2, int64(2000)
		params := llm.Params{Model: "gemini-2.5-flash", Temperature: &temp, MaxTokens: &maxTok, ReasoningEffort: "medium"}
		tools := []llm.ToolSpec{{Name: "ls", Description: "List a directory",
			Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"dir":{"type":"string"}},"required":["dir"]}`)}, {Name: "pwd"}}
		msgs := []llm.Message{{Role: llm.RoleSystem, Content: "Be brief."}, {Role: llm.RoleUser, Content: "where am I?"}}
		var pieces []string
		var onText func(string)
		if stream {
			onText = func(d string) { pieces = append(pieces, d) }
		}
		got, err := p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs, Tools: tools, OnText: onText})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.ToolCalls) != 2 || !strings.HasPrefix(got.ToolCalls[1].ID, "call_") {
			t.Fatalf("stream %v: tool calls %+v: want two, the second named by the client", stream, got.ToolCalls)
		}
		want := geminiTurn
		want.ToolCalls = []llm.ToolCall{want.ToolCalls[0], {ID: got.ToolCalls[1].ID, Name: "pwd", Arguments: "{}"}}
		want.ID, want.Model, want.FinishReason = "resp_llmtest_1", "gemini-2.5-flash", "tool_calls"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stream %v: answer (-want +got):\n%s", stream, diff)
		}
		if stream && strings.Join(pieces, "|") != "List|ing." {
			t.Errorf("streamed pieces %q", pieces)
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: got.Content, ToolCalls: got.ToolCalls, Reasoning: got.Reasoning},
			llm.Message{Role: llm.RoleTool, ToolCallID: "fc_1", Content: "a.txt"},
			llm.Message{Role: llm.RoleTool, ToolCallID: got.ToolCalls[1].ID, Content: "permission denied", IsError: true})
		if got, err := p.Complete(context.Background(), llm.Request{Params: params, Messages: msgs, Tools: tools, OnText: onText}); err != nil || got.Content != "Done." {
			t.Fatalf("turn 2: %+v, %v", got, err)
		}
		req := s.Requests()[1]
		if req.Model != "gemini-2.5-flash" || req.Stream != stream || req.Header.Get("X-Goog-Api-Key") != testKey {
			t.Errorf("request to model %q, stream %v, key header %q", req.Model, req.Stream, req.Header.Get("X-Goog-Api-Key"))
		}
		wantBody := `{
		  "systemInstruction": {"parts": [{"text": "Be brief."}]},
		  "contents": [
		    {"role": "user", "parts": [{"text": "where am I?"}]},
		    {"role": "model", "parts": [
		      {"text": "Two calls.", "thought": true, "thoughtSignature": "c2lnLXQ="},
		      {"text": "Listing.", "thoughtSignature": "c2lnLXR4dA=="},
		      {"functionCall": {"id": "fc_1", "name": "ls", "args": {"dir": "."}}, "thoughtSignature": "c2lnLWZj"},
		      {"functionCall": {"id": "CALL2", "name": "pwd", "args": {}}}
		    ]},
		    {"role": "user", "parts": [
		      {"functionResponse": {"id": "fc_1", "name": "ls", "response": {"output": "a.txt"}}},
		      {"functionResponse": {"id": "CALL2", "name": "pwd", "response": {"error": "permission denied"}}}
		    ]}
		  ],
		  "tools": [{"functionDeclarations": [
		    {"name": "ls", "description": "List a directory", "parameters": {"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"]}},
		    {"name": "pwd", "parameters": {"type": "object", "properties": {}}}
		  ]}],
		  "generationConfig": {"temperature": 0.2, "maxOutputTokens": 2000, "thinkingConfig": {"thinkingBudget": 8192, "includeThoughts": true}}
		}`
		if diff := cmp.Diff(decodeJSON(t, strings.ReplaceAll(wantBody, "CALL2", got.ToolCalls[1].ID)), req.Body); diff != "" {
			t.Errorf("stream %v: request of turn 2 (-want +got):\n%s", stream, diff)
		}
	}
}

// TestGeminiStreamBreaks: a stream cut before its finish reason is
// retried; an error chunk is an APIError of its code, retried when
// transient; an event that is not JSON is retried like a cut stream.
func TestGeminiStreamBreaks(t *testing.T) {
	chunk := func(text, finish string) string {
		c := `{"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]}` + finish + `}],"modelVersion":"gemini-2.5-pro"}`
		return "data: " + c + "\n\n"
	}
	full := chunk("Hi ", "") + chunk("there", `,"finishReason":"STOP"`)
	tests := []struct {
		name     string
		bodies   []string
		requests int
		wantErr  string
	}{
		{"cut stream retried", []string{chunk("Hi ", ""), full}, 2, ""},
		{"unavailable error chunk retried", []string{`data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}` + "\n\n", full}, 2, ""},
		{"bad request error chunk final", []string{`data: {"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}` + "\n\n"}, 1, "HTTP 400 Bad Request: INVALID_ARGUMENT: bad"},
		{"not JSON retried", []string{"data: {nope\n\n", full}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waits := recordRetries(t)
			url, requests := sseServer(t, tt.bodies...)
			got, err := newGeminiProvider(t, url).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "gemini-2.5-pro"},
				Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(string) {}})
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want it to say %q", err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || got.Content != "Hi there" || got.FinishReason != "stop"):
				t.Errorf("Complete = %+v, %v; want Hi there", got, err)
			}
			if n := requests(); n != tt.requests || len(waits()) != n-1 {
				t.Errorf("%d requests, %d waits; want %d requests", n, len(waits()), tt.requests)
			}
		})
	}
}

// TestGeminiErrors: an over-long prompt is ErrContextOverflow, a bad key
// ErrAuth naming GEMINI_API_KEY, a 429 is retried; no key at all is
// ErrNoAPIKey.
func TestGeminiErrors(t *testing.T) {
	waits := recordRetries(t)
	s := llmtest.NewGemini(t)
	s.Fail(400, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`)
	s.Fail(429, `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`)
	s.Fail(403, `{"error":{"code":403,"message":"API key not valid. Please pass a valid API key.","status":"PERMISSION_DENIED"}}`)
	p := newGeminiProvider(t, s.URL)
	req := llm.Request{Params: llm.Params{Model: "gemini-2.5-pro"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	if _, err := p.Complete(context.Background(), req); !errors.Is(err, llm.ErrContextOverflow) {
		t.Errorf("over-long prompt: %v, want ErrContextOverflow", err)
	}
	_, err := p.Complete(context.Background(), req)
	if !errors.Is(err, provider.ErrAuth) || !strings.Contains(err.Error(), "GEMINI_API_KEY") || len(waits()) != 1 {
		t.Errorf("429 then 403: %v after %d waits, want ErrAuth naming GEMINI_API_KEY after one", err, len(waits()))
	}
	if _, err := provider.New(agent.LLMConfig{Provider: "gemini"}, map[string]string{"OPENAI_API_KEY": "sk"}); !errors.Is(err, provider.ErrNoAPIKey) ||
		!strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("gemini without its key: %v, want ErrNoAPIKey naming GEMINI_API_KEY", err)
	}
}

// TestGeminiPlainSchemas: tool schemas reach Gemini without the keywords
// it refuses, at any depth, while a parameter of that name stays.
func TestGeminiPlainSchemas(t *testing.T) {
	s := llmtest.NewGemini(t)
	s.Reply(llm.Response{Content: "ok"})
	params := json.RawMessage(`{"type":"object","$schema":"x","additionalProperties":false,"properties":{` +
		`"additionalProperties":{"type":"string"},"list":{"type":"array","items":{"type":"object","additionalProperties":false}}}}`)
	if _, err := newGeminiProvider(t, s.URL).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"},
		Tools: []llm.ToolSpec{{Name: "t", Description: "d", Parameters: params}}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{
		"additionalProperties": map[string]any{"type": "string"},
		"list":                 map[string]any{"type": "array", "items": map[string]any{"type": "object"}}}}
	decl := s.Requests()[0].Body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(want, decl["parameters"]); diff != "" {
		t.Errorf("parameters sent (-want +got):\n%s", diff)
	}
}
