package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// TestOpenAIBodyShapes pins the request body the SDK used to encode: an
// assistant message that only calls tools has no content, one that says
// nothing has "", a tool without a schema gets an empty object schema, a
// schema that is not an object is refused, and "<" "&" travel unescaped.
func TestOpenAIBodyShapes(t *testing.T) {
	body, err := openAIBody(llm.Request{
		Params: llm.Params{Model: "m"},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "a<b && c"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t"}}},
			{Role: llm.RoleAssistant},
		},
		Tools: []llm.ToolSpec{{Name: "t"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"a<b && c"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]},` +
		`{"role":"assistant","content":""}],` +
		`"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{}}}}]}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	for _, bad := range []string{`[1]`, `{"type":`, `"x"`} {
		_, err := openAIBody(llm.Request{Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(bad)}}}, nil)
		if err == nil || !strings.Contains(err.Error(), `tool "t": parameters schema is not a JSON object`) {
			t.Errorf("schema %s: err = %v", bad, err)
		}
	}
	if _, err := openAIBody(llm.Request{Messages: []llm.Message{{Role: "robot"}}}, nil); err == nil || !strings.Contains(err.Error(), `unknown role "robot"`) {
		t.Errorf("unknown role: err = %v", err)
	}
}

// TestOpenAIReasoning: llm.reasoning_effort goes out as reasoning_effort,
// and another provider's reasoning blocks in the history are not sent.
func TestOpenAIReasoning(t *testing.T) {
	body, err := openAIBody(llm.Request{
		Params: llm.Params{Model: "o4", ReasoningEffort: "high"},
		Messages: []llm.Message{
			{Role: llm.RoleAssistant, Content: "ok", Reasoning: []llm.Reasoning{{Type: "thinking", Text: "secret plan", Signature: "sig"}}},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"o4","messages":[{"role":"assistant","content":"ok"}],"reasoning_effort":"high"}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
}
