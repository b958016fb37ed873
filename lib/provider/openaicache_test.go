package provider

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// referenceBody encodes the whole request at once: the body the message
// cache must reproduce byte for byte.
func referenceBody(t testing.TB, req llm.Request) string {
	t.Helper()
	var err error
	sp := req.Params
	full := chatRequest{Model: sp.Model, Temperature: sp.Temperature, MaxTokens: sp.MaxTokens, TopP: sp.TopP,
		FrequencyPenalty: sp.FrequencyPenalty, PresencePenalty: sp.PresencePenalty, Stop: sp.Stop,
		ReasoningEffort: sp.ReasoningEffort, Seed: sp.Seed, Messages: make([]chatMessage, len(req.Messages))}
	if req.OnText != nil {
		full.Stream, full.StreamOptions = true, &streamOpts{IncludeUsage: true}
	}
	for i := range req.Messages {
		if full.Messages[i], err = chatMessageOf(&req.Messages[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tl := range req.Tools {
		schema, err := schemaOf(tl.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		full.Tools = append(full.Tools, chatTool{Type: "function", Function: chatToolDef{Name: tl.Name, Description: tl.Description, Parameters: schema}})
	}
	out, err := encodeJSON(full)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// checkBodies sends reqs in order through one cache and compares each body
// with the whole request encoded at once.
func checkBodies(t testing.TB, reqs ...llm.Request) {
	t.Helper()
	cache := newMessageCache()
	for i, req := range reqs {
		got, err := openAIBody(req, cache)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if want := referenceBody(t, req); string(got) != want {
			t.Fatalf("request %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestMessageCacheBodies: a conversation's requests, encoded with the
// messages of the one before taken from the cache, are byte for byte the
// requests encoded whole, including when an earlier message changed, when
// two messages are equal, when the conversation is cut short and when its
// window slides.
func TestMessageCacheBodies(t *testing.T) {
	temp := 0.2
	params := llm.Params{Model: `m"<&>`, Temperature: &temp, Stop: []string{"x"}}
	tools := []llm.ToolSpec{{Name: "t", Description: "a <tool>", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)}, {Name: "u"}}
	conv := []llm.Message{
		{Role: llm.RoleSystem, Name: "system_prompt", Content: "You are \"careful\" & <brief>.\n\u2028"},
		{Role: llm.RoleUser, Content: "go"},
	}
	var reqs []llm.Request
	for it := 1; it <= 6; it++ {
		id := fmt.Sprint("call_", it)
		conv = append(conv,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "t", Arguments: fmt.Sprintf(`{"n":"%d"}`, it)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "(no output)"})
		reqs = append(reqs, llm.Request{Params: params, Tools: tools, Messages: append([]llm.Message(nil), conv...)})
	}
	edited := append([]llm.Message(nil), conv...)
	edited[3].Content = "changed: \x00\x1f\ufffd" // a result rewritten (a hook, a folded context)
	edited = append(edited, edited[1], edited[1]) // equal messages
	edited = append(edited, llm.Message{Role: llm.RoleAssistant, Content: "done"})
	reqs = append(reqs,
		llm.Request{Params: params, Tools: tools, Messages: edited},
		llm.Request{Params: params, Messages: conv[:3], OnText: func(string) {}}, // cut short, streaming
		llm.Request{Params: llm.Params{Model: "m"}},                              // no messages
		llm.Request{Params: params, Tools: tools, Messages: edited},
		llm.Request{Params: params, Tools: tools, Messages: conv},
		// The window slid: the first iterations left out.
		llm.Request{Params: params, Tools: tools, Messages: append(append([]llm.Message(nil), conv[:2]...), conv[6:]...)})
	checkBodies(t, reqs...)
}

// FuzzMessageCache: two requests built from arbitrary texts, the second
// repeating, changing and adding messages, encode as the whole requests.
func FuzzMessageCache(f *testing.F) {
	f.Add("hello", `{"a":1}`, "done", "id1")
	f.Add("<&>\u2028", "", "\x00", "")
	f.Fuzz(func(t *testing.T, a, b, c, id string) {
		first := []llm.Message{
			{Role: llm.RoleUser, Content: a},
			{Role: llm.RoleAssistant, Content: c, ToolCalls: []llm.ToolCall{{ID: id, Name: "t", Arguments: b}}},
			{Role: llm.RoleTool, ToolCallID: id, Content: b},
		}
		second := append([]llm.Message(nil), first...)
		second[2].Content = c
		second = append(second, llm.Message{Role: llm.RoleSystem, Name: a, Content: b}, first[0])
		checkBodies(t, llm.Request{Params: llm.Params{Model: c}, Messages: first},
			llm.Request{Params: llm.Params{Model: c}, Messages: second})
	})
}

// BenchmarkOpenAIBody300 encodes the request of the 300th iteration of a
// run (one tool call and its result an iteration): whole, and with the
// 299th request's messages in the cache, as a run does (the cached case
// alternates the two requests: ns/body is the time of one).
func BenchmarkOpenAIBody300(b *testing.B) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You are a test agent."}, {Role: llm.RoleUser, Content: "go"}}
	for it := 1; it <= 300; it++ {
		id := fmt.Sprint("call_", it)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: "step " + id, ToolCalls: []llm.ToolCall{{ID: id, Name: "t", Arguments: fmt.Sprintf(`{"n":"%d"}`, it)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "(no output)"})
	}
	tools := []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)}}
	prev := llm.Request{Params: llm.Params{Model: "m"}, Tools: tools, Messages: msgs[:len(msgs)-2]}
	req := llm.Request{Params: llm.Params{Model: "m"}, Tools: tools, Messages: msgs}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := openAIBody(req, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := newMessageCache()
		for b.Loop() {
			if _, err := openAIBody(prev, cache); err != nil {
				b.Fatal(err)
			}
			if _, err := openAIBody(req, cache); err != nil {
				b.Fatal(err)
			}
		}
		// Two bodies a loop, each with all but two messages cached.
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/body")
	})
}
