package engine

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// TestEncodeInvocationIsMarshal checks that the record put together around
// the encoded request is the document json.Marshal gives for it.
func TestEncodeInvocationIsMarshal(t *testing.T) {
	temp := 0.5
	req := llm.Request{Params: llm.Params{Model: "m", Temperature: &temp}, Turn: 2,
		Messages: []llm.Message{{Role: "user", Content: "a <b> & \"c\"\n"}, {Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "1", Name: "t", Arguments: `{"x":1}`}}}},
		Tools:    []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	encoded, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	resp := llm.Response{Content: "ok <&>", Model: "m", Usage: llm.Usage{InputTokens: 3, OutputTokens: 1}}
	for name, callErr := range map[string]error{"answer": nil, "error": errors.New(`status 500: "<busy>"`)} {
		got, err := encodeInvocation(7, now, 1500*time.Millisecond, encoded, resp, callErr)
		if err != nil {
			t.Fatal(err)
		}
		rec := invocation{Iteration: 7, Timestamp: now, DurationMS: 1500, Request: encoded}
		if callErr != nil {
			rec.Error = callErr.Error()
		} else {
			rec.Response = &resp
		}
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Errorf("%s: encodeInvocation =\n%s\nwant\n%s", name, got, want)
		}
	}
}
