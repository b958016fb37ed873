package provider_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

// pngBytes stand for an image; "iVBORw==" is their base64.
var pngBytes = []byte{0x89, 'P', 'N', 'G'}

// imageTurn is a turn of two parallel calls whose first result has an
// image, then a user message with an image of its own.
func imageTurn() []llm.Message {
	img := llm.Part{Type: llm.PartImage, MediaType: "image/png", Data: pngBytes, Path: "io/x/image-1.png", Size: 4}
	return []llm.Message{
		{Role: "user", Content: "Look."},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"file_path":"a.png"}`}, {ID: "call_b", Name: "ls", Arguments: `{}`}}},
		{Role: "tool", ToolCallID: "call_a", Content: "Image a.png", Parts: []llm.Part{img}},
		{Role: "tool", ToolCallID: "call_b", Content: "a.png"},
		{Role: "user", Content: "And this?", Parts: []llm.Part{img}},
	}
}

// complete sends msgs to p once.
func complete(t *testing.T, p llm.Provider, model string, msgs []llm.Message) {
	t.Helper()
	if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: model}, Messages: msgs}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
}

// field is the JSON of body's top-level key.
func field(t *testing.T, body []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// TestChatImages: Chat Completions (API reference: chat/create) takes an
// image as an image_url content part with a data URL in a user message;
// a tool message is text only, so a result's image follows the turn's
// results in a user message that names the call.
func TestChatImages(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	p, err := provider.New(agent.LLMConfig{Provider: "openai-compatible", API: "chat"}, map[string]string{"DELTA_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	complete(t, p, "gpt-4o", imageTurn())
	jsonEqual(t, "messages", []byte(`[
		{"role":"user","content":"Look."},
		{"role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"file_path\":\"a.png\"}"}},
			{"id":"call_b","type":"function","function":{"name":"ls","arguments":"{}"}}]},
		{"role":"tool","content":"Image a.png","tool_call_id":"call_a"},
		{"role":"tool","content":"a.png","tool_call_id":"call_b"},
		{"role":"user","content":[{"type":"text","text":"The image(s) of the result of tool call call_a:"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}}]},
		{"role":"user","content":[{"type":"text","text":"And this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}}]}
	]`), field(t, s.Requests()[0].Body, "messages"))
}

// TestResponsesImages: the Responses API (API reference: responses/create)
// takes a function_call_output's output as a list of input_text and
// input_image parts, an image as a data URL, and a message's content
// likewise.
func TestResponsesImages(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	complete(t, newResponses(t, s.URL), "gpt-5", imageTurn())
	jsonEqual(t, "input", []byte(`[
		{"role":"user","content":"Look."},
		{"type":"function_call","call_id":"call_a","name":"read_file","arguments":"{\"file_path\":\"a.png\"}"},
		{"type":"function_call","call_id":"call_b","name":"ls","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_a","output":[{"type":"input_text","text":"Image a.png"},
			{"type":"input_image","image_url":"data:image/png;base64,iVBORw==","detail":"auto"}]},
		{"type":"function_call_output","call_id":"call_b","output":"a.png"},
		{"role":"user","content":[{"type":"input_text","text":"And this?"},
			{"type":"input_image","image_url":"data:image/png;base64,iVBORw==","detail":"auto"}]}
	]`), field(t, s.Requests()[0].Body, "input"))
}

// TestAnthropicImages: Messages (API reference: messages, tool use) takes
// image blocks with a base64 source inside a tool_result's content, and in
// a user turn.
func TestAnthropicImages(t *testing.T) {
	s := llmtest.NewAnthropic(t)
	s.Reply(llm.Response{Content: "ok"})
	p, err := provider.New(agent.LLMConfig{Provider: "anthropic", Cache: new(bool)}, map[string]string{"ANTHROPIC_API_KEY": testKey, "ANTHROPIC_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	complete(t, p, "claude-sonnet-4-5", imageTurn())
	got, _ := json.Marshal(s.Requests()[0]["messages"])
	jsonEqual(t, "messages", []byte(`[
		{"role":"user","content":[{"type":"text","text":"Look."}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"call_a","name":"read_file","input":{"file_path":"a.png"}},
			{"type":"tool_use","id":"call_b","name":"ls","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_a","content":[{"type":"text","text":"Image a.png"},
				{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]},
			{"type":"tool_result","tool_use_id":"call_b","content":[{"type":"text","text":"a.png"}]},
			{"type":"text","text":"And this?"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]}
	]`), got)
}

// TestGeminiImages: generateContent (API reference: Content, Part,
// FunctionResponse) takes media as inlineData parts. Gemini 3 takes a
// function's image inside its functionResponse (parts); older models get
// it as an inlineData part after the turn's function responses.
func TestGeminiImages(t *testing.T) {
	for _, tc := range []struct{ model, results string }{
		{"gemini-2.5-flash", `[
			{"functionResponse":{"id":"call_a","name":"read_file","response":{"output":"Image a.png"}}},
			{"functionResponse":{"id":"call_b","name":"ls","response":{"output":"a.png"}}},
			{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}},
			{"text":"And this?"},
			{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}}]`},
		{"gemini-3-pro-preview", `[
			{"functionResponse":{"id":"call_a","name":"read_file","response":{"output":"Image a.png"},
				"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}}]}},
			{"functionResponse":{"id":"call_b","name":"ls","response":{"output":"a.png"}}},
			{"text":"And this?"},
			{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}}]`},
	} {
		s := llmtest.NewGemini(t)
		s.Reply(llm.Response{Content: "ok"})
		complete(t, newGeminiProvider(t, s.URL), tc.model, imageTurn())
		contents := s.Requests()[0].Body["contents"].([]any)
		got, _ := json.Marshal(contents[2].(map[string]any)["parts"])
		jsonEqual(t, tc.model+": the user turn after the calls", []byte(tc.results), got)
	}
}

// TestImagesForTextModels: a model that takes no images (one the table
// does not know, or llm.images: false) gets a line saying what the image
// was and where it is kept, in every protocol; llm.images: true sends
// them to a model the table does not know.
func TestImagesForTextModels(t *testing.T) {
	s := llmtest.NewServer(t)
	for range 3 {
		s.ReplyText("ok")
	}
	newChat := func(images *bool) llm.Provider {
		p, err := provider.New(agent.LLMConfig{Provider: "openai-compatible", Images: images}, map[string]string{"DELTA_BASE_URL": s.URL})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	yes, no := true, false
	complete(t, newChat(nil), "llama3", imageTurn())
	complete(t, newChat(&no), "gpt-4o", imageTurn())
	complete(t, newChat(&yes), "llava", imageTurn())
	const line = `Image a.png\n[image: image/png, 4 bytes, io/x/image-1.png] (not shown: this model does not take image input)`
	for i, want := range []bool{false, false, true} {
		body := string(s.Requests()[i].Body)
		if strings.Contains(body, "image_url") != want || strings.Contains(body, line) == want {
			t.Errorf("request %d: images sent %v, want %v:\n%s", i, strings.Contains(body, "image_url"), want, body)
		}
	}
}
