package main

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// TestPrintMessagesIsPrintJSON checks that the streaming printer writes
// the very bytes of the indented encoder it replaces.
func TestPrintMessagesIsPrintJSON(t *testing.T) {
	many := []llm.Message{
		{Role: "system", Content: "# Context Block: a\n\n<b> & \"c\" \u2028", Name: "a"},
		{Role: "user", Content: ""},
		{Role: "assistant", Content: "x", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":[1,{"b":null}]}`}}},
		{Role: "tool", Content: "out\n\ttab", ToolCallID: "c1"},
	}
	for n := 0; n <= len(many); n++ {
		msgs := many[:n]
		if n == 0 {
			msgs = []llm.Message{}
		}
		var want, got bytes.Buffer
		if err := printJSON(&want, msgs); err != nil {
			t.Fatal(err)
		}
		if err := printMessages(&got, msgs); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d messages: printMessages wrote\n%s\nprintJSON writes\n%s", n, got.String(), want.String())
		}
	}
}
