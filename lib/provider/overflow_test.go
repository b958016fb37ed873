package provider_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestContextOverflowRecognised: the ways endpoints refuse a request that
// exceeds the context window match llm.ErrContextOverflow; other client
// errors and server errors do not.
func TestContextOverflowRecognised(t *testing.T) {
	req := llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}}
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"OpenAI", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, true},
		{"llama.cpp", 400, `{"error":{"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, true},
		{"another 400", 400, `{"error":{"message":"Invalid value for temperature","type":"invalid_request_error"}}`, false},
	} {
		s := llmtest.NewServer(t)
		s.Fail(tc.status, tc.body)
		_, err := newOpenAI(t, s).Complete(context.Background(), req)
		if got := errors.Is(err, llm.ErrContextOverflow); got != tc.want {
			t.Errorf("%s: errors.Is(%v, ErrContextOverflow) = %v, want %v", tc.name, err, got, tc.want)
		}
	}
	_, url := newFakeAnthropic(t, fakeAnswer{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`})
	if _, err := newAnthropicProvider(t, url).Complete(context.Background(), req); !errors.Is(err, llm.ErrContextOverflow) {
		t.Errorf("Anthropic: %v is not ErrContextOverflow", err)
	}
}
