package provider

import (
	"strings"
	"testing"
)

// FuzzAnthropicStream: any byte stream decodes to an answer or an error,
// never a panic, and text handed to onText is the answer's text.
func FuzzAnthropicStream(f *testing.F) {
	f.Add("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n" +
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
		"data: {\"type\":\"message_stop\"}\n\n")
	f.Add("data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n")
	f.Add("data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}}\n\n")
	p := &anthropicProvider{remote: remote{ep: endpoint{name: "anthropic", keyVars: []string{"DELTA_API_KEY", "ANTHROPIC_API_KEY"}}}}
	f.Fuzz(func(t *testing.T, stream string) {
		var text strings.Builder
		r, err := p.readStream(strings.NewReader(stream), "http://x/v1/messages", func(s string) { text.WriteString(s) })
		if err == nil && r.Content != text.String() {
			t.Errorf("content %q, streamed %q", r.Content, text.String())
		}
	})
}

// FuzzGeminiStream: any byte stream decodes to an answer or an error,
// never a panic.
func FuzzGeminiStream(f *testing.F) {
	f.Add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thought\":true},{\"text\":\"b\",\"thoughtSignature\":\"s\"}]},\"finishReason\":\"STOP\"}]}\n\n")
	f.Add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{}}}]}}]}\n\n")
	f.Add("data: {\"error\":{\"code\":0}}\n\n")
	p := &geminiProvider{remote: remote{ep: endpoint{name: "gemini", keyVars: []string{"DELTA_API_KEY", "GEMINI_API_KEY"}}}}
	f.Fuzz(func(t *testing.T, stream string) {
		var text strings.Builder
		r, err := newGeminiAnswer(func(s string) { text.WriteString(s) }).readStream(p, strings.NewReader(stream), "http://x/v1beta")
		if err == nil && r.Content != text.String() {
			t.Errorf("content %q, streamed %q", r.Content, text.String())
		}
	})
}
