package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

// sseServer answers each request with the next of bodies as an event
// stream, and counts the requests.
func sseServer(t *testing.T, bodies ...string) (string, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(bodies) {
			http.Error(w, "no more answers", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, bodies[i])
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func sse(event, data string) string { return "event: " + event + "\ndata: " + data + "\n\n" }

var (
	sseStart = sse("message_start", `{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":1}}}`)
	sseText  = sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		sse("ping", `{"type":"ping"}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":0}`)
	sseEnd = sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`) +
		sse("message_stop", `{"type":"message_stop"}`)
	// Two parallel calls, each input split across deltas.
	sseTools = sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"ls","input":{}}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"dir\": \"s"}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"rc\"}"}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sse("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"pwd","input":{}}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}`) +
		sse("message_stop", `{"type":"message_stop"}`)
	sseThinking = sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm, "}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"two files."}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sse("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"cmVk"}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":1}`)
)

// TestAnthropicStreamContract decodes the streams of the streaming
// reference into the llm.Response a plain call gives, and maps a broken
// stream and error events onto the retry policy.
func TestAnthropicStreamContract(t *testing.T) {
	usage := llm.Usage{InputTokens: 125, OutputTokens: 7, CacheReadTokens: 100, CacheWriteTokens: 20}
	tests := []struct {
		name     string
		bodies   []string
		want     llm.Response
		pieces   string
		requests int
		wantErr  string
	}{
		{name: "text, usage at the end", bodies: []string{sseStart + sseText + sseEnd},
			want:   llm.Response{ID: "msg_s", Model: "claude-test", Content: "Hello", Usage: usage, FinishReason: "stop"},
			pieces: "Hel|lo", requests: 1},
		{name: "parallel tool calls split across chunks", bodies: []string{sseStart + sseTools},
			want: llm.Response{ID: "msg_s", Model: "claude-test", FinishReason: "tool_calls",
				ToolCalls: []llm.ToolCall{{ID: "toolu_a", Name: "ls", Arguments: `{"dir": "src"}`}, {ID: "toolu_b", Name: "pwd", Arguments: "{}"}},
				Usage:     llm.Usage{InputTokens: 125, OutputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 20}},
			requests: 1},
		{name: "thinking with signature, redacted thinking", bodies: []string{sseStart + sseThinking + strings.ReplaceAll(sseText, `"index":0`, `"index":2`) + sseEnd},
			want: llm.Response{ID: "msg_s", Model: "claude-test", Content: "Hello", Usage: usage, FinishReason: "stop",
				Reasoning: []llm.Reasoning{{Type: "thinking", Text: "Hmm, two files.", Signature: "EqQB"}, {Type: "redacted_thinking", Data: "cmVk"}}},
			pieces: "Hel|lo", requests: 1},
		{name: "cut stream is retried", bodies: []string{sseStart + sseText, sseStart + sseText + sseEnd},
			want:   llm.Response{ID: "msg_s", Model: "claude-test", Content: "Hello", Usage: usage, FinishReason: "stop"},
			pieces: "Hel|lo|Hel|lo", requests: 2},
		{name: "overloaded error event is retried", bodies: []string{sseStart + sse("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), sseStart + sseText + sseEnd},
			want:   llm.Response{ID: "msg_s", Model: "claude-test", Content: "Hello", Usage: usage, FinishReason: "stop"},
			pieces: "Hel|lo", requests: 2},
		{name: "invalid request error event is final", bodies: []string{sse("error", `{"type":"error","error":{"type":"invalid_request_error","message":"bad thing"}}`)},
			requests: 1, wantErr: "anthropic: HTTP 400 Bad Request: invalid_request_error: bad thing"},
		{name: "an event that is not JSON is retried", bodies: []string{sseStart + "event: content_block_delta\ndata: bogus\n\n", sseStart + sseText + sseEnd},
			want:   llm.Response{ID: "msg_s", Model: "claude-test", Content: "Hello", Usage: usage, FinishReason: "stop"},
			pieces: "Hel|lo", requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waits := recordRetries(t)
			url, requests := sseServer(t, tt.bodies...)
			var pieces []string
			got, err := newAnthropicProvider(t, url).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "claude-test"},
				Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(d string) { pieces = append(pieces, d) }})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Complete error = %v, want it to say %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Complete: %v", err)
			} else if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if p := strings.Join(pieces, "|"); p != tt.pieces {
				t.Errorf("streamed pieces %q, want %q", p, tt.pieces)
			}
			if n := requests(); n != tt.requests || len(waits()) != n-1 {
				t.Errorf("%d requests and %d waits, want %d and %d", n, len(waits()), tt.requests, tt.requests-1)
			}
		})
	}
}

// TestAnthropicStreamAuthEvent: an authentication error event matches
// ErrAuth and says which variable to set, without the key.
func TestAnthropicStreamAuthEvent(t *testing.T) {
	url, _ := sseServer(t, sse("error", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+testKey+`"}}`))
	_, err := newAnthropicProvider(t, url).Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"},
		Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(string) {}})
	if !errors.Is(err, provider.ErrAuth) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || strings.Contains(err.Error(), testKey) {
		t.Errorf("error = %v, want ErrAuth naming ANTHROPIC_API_KEY without the key", err)
	}
}
