package main

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// trickyText holds what a JSON encoder must escape: quotes, backslashes,
// control characters, HTML characters (left alone), U+2028/U+2029,
// invalid UTF-8 and DEL.
const trickyText = "a \"q\" \\ <b> & \x00\x01\x1f\x7f\b\f\n\r\t \u2028\u2029 é 😀 \xff\xc3"

// checkPrintMessages fails when printMessages and printJSON differ on msgs.
func checkPrintMessages(t *testing.T, msgs []llm.Message) {
	t.Helper()
	var want, got bytes.Buffer
	if err := printJSON(&want, msgs); err != nil {
		t.Fatal(err)
	}
	if err := printMessages(&got, msgs); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("printMessages wrote\n%q\nprintJSON writes\n%q", got.String(), want.String())
	}
	// The same messages given as several lists (the context's parts).
	for k := 0; k <= len(msgs); k++ {
		got.Reset()
		if err := printMessages(&got, nil, msgs[:k], []llm.Message{}, msgs[k:]); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("printMessages of the lists split at %d wrote\n%q\nprintJSON writes\n%q", k, got.String(), want.String())
		}
	}
}

// TestPrintMessagesIsPrintJSON checks that the direct printer writes the
// very bytes of the indented encoder it replaces.
func TestPrintMessagesIsPrintJSON(t *testing.T) {
	many := []llm.Message{
		{Role: "system", Content: "# Context Block: a\n\n" + trickyText, Name: "a"},
		{Role: "user", Content: ""},
		{Role: "assistant", Content: "x", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: `{"a":[1,{"b":null}]}`}, {ID: trickyText}}},
		{Role: "assistant", ToolCalls: []llm.ToolCall{}},
		{Role: "tool", Content: "out\n\ttab", ToolCallID: "c1", Name: trickyText},
		{Role: "tool", Content: "failed", ToolCallID: "c2", IsError: true},
		{Role: "assistant", Content: "y", Reasoning: []llm.Reasoning{{Type: "thinking", Text: trickyText, Signature: "sig"},
			{Type: "redacted_thinking", Data: "d"}, {Type: "reasoning", ID: "rs_1", Data: "enc"}}},
		{Role: "assistant", Reasoning: []llm.Reasoning{}},
		{Role: "tool", Content: "Image a.png", ToolCallID: "c3", Parts: []llm.Part{
			{Type: "image", MediaType: "image/png", Data: []byte{0x89, 'P'}, Path: "io/tool_executions/x/image-1.png", Size: 2},
			{Type: "audio", MediaType: "audio/wav", Data: []byte("RIFF")}, {Type: "image", MediaType: trickyText}}},
	}
	checkPrintMessages(t, []llm.Message{})
	for n := 1; n <= len(many); n++ {
		checkPrintMessages(t, many[:n])
	}
}

// FuzzPrintMessages holds printMessages to printJSON for any text.
func FuzzPrintMessages(f *testing.F) {
	f.Add("role", trickyText, "id", "{}")
	f.Add("", "\xed\xa0\x80 \U0010ffff \ufffd", "", "")
	f.Fuzz(func(t *testing.T, role, content, id, args string) {
		checkPrintMessages(t, []llm.Message{
			{Role: role, Content: content, Name: id},
			{Role: role, Content: content, ToolCalls: []llm.ToolCall{{ID: id, Name: role, Arguments: args}}, ToolCallID: id},
		})
	})
}
