package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

// newResponses is a client of the Responses API at url.
func newResponses(t testing.TB, url string) llm.Provider {
	t.Helper()
	p, err := provider.New(agent.LLMConfig{Provider: "openai", BaseURL: url, API: "responses"}, map[string]string{"DELTA_API_KEY": testKey})
	if err != nil {
		t.Fatalf("New(openai, api responses): %v", err)
	}
	return p
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t *testing.T, what string, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want is not JSON: %v", what, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: got is not JSON: %v\n%s", what, err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// conversation is a turn with reasoning, text and two parallel calls, one
// of which failed, then the next user message.
var conversation = []llm.Message{
	{Role: "system", Content: "Be brief.", Name: "sys"},
	{Role: "user", Content: "List and count."},
	{Role: "assistant", Content: "Looking.", Reasoning: []llm.Reasoning{{Type: "reasoning", ID: "rs_1", Text: "Plan: ls, wc.", Data: "gAAAA-enc"}},
		ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "ls", Arguments: `{"dir":"."}`}, {ID: "call_b", Name: "wc", Arguments: ""}}},
	{Role: "tool", ToolCallID: "call_a", Content: "a.txt"},
	{Role: "tool", ToolCallID: "call_b", Content: "error: wc: not found"},
}

var tools = []llm.ToolSpec{
	{Name: "ls", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}}}`)},
	{Name: "wc"},
}

// TestResponsesRequestContract compares the body with one written from
// OpenAI's API reference (Responses: create): input items for messages,
// reasoning with encrypted_content, function_call and
// function_call_output; flat function tools; reasoning.effort; store false.
func TestResponsesRequestContract(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	_, err := newResponses(t, s.URL).Complete(context.Background(), llm.Request{
		Params:   llm.Params{Model: "gpt-5", MaxTokens: i64(500), ReasoningEffort: "low", Extra: map[string]any{"service_tier": "flex"}},
		Messages: conversation, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
	  "model": "gpt-5",
	  "input": [
	    {"role": "system", "content": "Be brief."},
	    {"role": "user", "content": "List and count."},
	    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Plan: ls, wc."}], "encrypted_content": "gAAAA-enc"},
	    {"role": "assistant", "content": "Looking."},
	    {"type": "function_call", "call_id": "call_a", "name": "ls", "arguments": "{\"dir\":\".\"}"},
	    {"type": "function_call", "call_id": "call_b", "name": "wc", "arguments": "{}"},
	    {"type": "function_call_output", "call_id": "call_a", "output": "a.txt"},
	    {"type": "function_call_output", "call_id": "call_b", "output": "error: wc: not found"}
	  ],
	  "tools": [
	    {"type": "function", "name": "ls", "description": "List a directory.", "parameters": {"type":"object","properties":{"dir":{"type":"string"}}}, "strict": false},
	    {"type": "function", "name": "wc", "parameters": {"type":"object","properties":{}}, "strict": false}
	  ],
	  "max_output_tokens": 500,
	  "reasoning": {"effort": "low"},
	  "store": false,
	  "include": ["reasoning.encrypted_content"],
	  "stream": true,
	  "service_tier": "flex"
	}`
	rec := s.Requests()[0]
	if rec.Path != "/v1/responses" {
		t.Errorf("path = %s, want /v1/responses", rec.Path)
	}
	if got := rec.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
	jsonEqual(t, "request body", []byte(want), rec.Body)
}

// A Responses stream as OpenAI sends it (text in deltas, two parallel
// calls whose arguments arrive in pieces, an encrypted reasoning item,
// usage with cached and reasoning tokens) decodes into one llm.Response.
const responsesStream = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}

: keep-alive

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_9","summary":[]}}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"enc-9"}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hel"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"lo"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"dir\""}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":":\".\"}"}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5-2025","output":[{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"enc-9"},{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}]},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"ls","arguments":"{\"dir\":\".\"}"},{"type":"function_call","id":"fc_2","call_id":"call_2","name":"wc","arguments":""}],"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":80},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":20},"total_tokens":130}}}

`

// streamServer answers every request with body as an event stream.
func streamServer(t *testing.T, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResponsesStreamContract(t *testing.T) {
	srv := streamServer(t, responsesStream)
	var text strings.Builder
	got, err := newResponses(t, srv.URL+"/v1").Complete(context.Background(), llm.Request{Params: llm.Params{Model: "gpt-5"},
		OnText: func(d string) { text.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{ID: "resp_1", Model: "gpt-5-2025", Content: "Hello", FinishReason: "tool_calls",
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"dir":"."}`}, {ID: "call_2", Name: "wc", Arguments: "{}"}},
		Reasoning: []llm.Reasoning{{Type: "reasoning", ID: "rs_9", Text: "Think.", Data: "enc-9"}},
		Usage:     llm.Usage{InputTokens: 100, OutputTokens: 30}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded stream (-want +got):\n%s", diff)
	}
	if text.String() != "Hello" {
		t.Errorf("OnText got %q, want Hello", text.String())
	}
}

// The fake server's answers, plain and streamed, decode to what was
// queued, and reasoning comes back in the next request's input.
func TestResponsesRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			s := llmtest.NewServer(t)
			first := llm.Response{ID: "resp_llmtest_1", Model: "gpt-5", Content: "Two calls.", FinishReason: "tool_calls",
				Reasoning: []llm.Reasoning{{Type: "reasoning", ID: "rs_a", Text: "sum", Data: "enc-a"}},
				ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ls", Arguments: `{"dir":"a"}`}, {ID: "c2", Name: "ls", Arguments: `{"dir":"b"}`}},
				Usage:     llm.Usage{InputTokens: 10, OutputTokens: 5}}
			s.Reply(first)
			s.ReplyText("done")
			p := newResponses(t, s.URL)
			req := llm.Request{Params: llm.Params{Model: "gpt-5"}, Messages: []llm.Message{{Role: "user", Content: "go"}}}
			if stream {
				req.OnText = func(string) {}
			}
			got, err := p.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("first answer (-want +got):\n%s", diff)
			}
			req.Messages = append(req.Messages, llm.Message{Role: "assistant", Content: got.Content, ToolCalls: got.ToolCalls, Reasoning: got.Reasoning},
				llm.Message{Role: "tool", ToolCallID: "c1", Content: "x"}, llm.Message{Role: "tool", ToolCallID: "c2", Content: "y"})
			if _, err := p.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(req.Messages, s.Requests()[1].Messages); diff != "" {
				t.Errorf("second request's input (-want +got):\n%s", diff)
			}
		})
	}
}

// Errors inside a stream: the error event and response.failed become
// APIErrors (a context overflow is llm.ErrContextOverflow, a rate limit
// is retried), not decoding failures.
func TestResponsesStreamErrors(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   error
	}{
		{"error event overflow", "event: error\ndata: {\"type\":\"error\",\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model.\"}\n\n", llm.ErrContextOverflow},
		{"response failed", "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"output\":[],\"error\":{\"code\":\"invalid_prompt\",\"message\":\"bad prompt\"}}}\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recordRetries(t)
			srv := streamServer(t, tt.stream)
			_, err := newResponses(t, srv.URL).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			var ae *provider.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("Complete error = %v, want an APIError", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Complete error = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), "giving up") {
				t.Errorf("Complete error = %v: a refused request is not retried", err)
			}
		})
	}
}
