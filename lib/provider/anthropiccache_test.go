package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

// cachedRun drives n iterations of a tool loop against the fake Anthropic
// endpoint, which honours cache breakpoints, and returns the share of the
// input tokens of every call after the second that was read from the
// cache (0 to 1), and the usage of each call.
func cachedRun(t testing.TB, n int, cache bool, stream bool) (float64, []llm.Usage) {
	s := llmtest.NewAnthropic(t)
	p, err := provider.New(agent.LLMConfig{Provider: "anthropic", Cache: &cache}, map[string]string{"ANTHROPIC_API_KEY": "k", "DELTA_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	var tools []llm.ToolSpec
	for i := range 6 {
		tools = append(tools, llm.ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: strings.Repeat("Does a useful thing. ", 10),
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"where"}},"required":["path"]}`)})
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: strings.Repeat("You are a careful coding agent. ", 120)},
		{Role: llm.RoleUser, Content: "Fix the failing test in ./pkg."},
	}
	var usages []llm.Usage
	var onText func(string)
	if stream {
		onText = func(string) {}
	}
	for i := range n {
		calls := []llm.ToolCall{{ID: fmt.Sprintf("toolu_%d", i), Name: "tool1", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}
		if i%5 == 0 { // now and then two calls at once
			calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("toolu_%db", i), Name: "tool2", Arguments: `{"path":"."}`})
		}
		s.Reply(llm.Response{Content: "Looking at the next file.", ToolCalls: calls})
		resp, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "claude-sonnet-4-5"}, Messages: msgs, Tools: tools, OnText: onText})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		usages = append(usages, resp.Usage)
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		for _, c := range resp.ToolCalls {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: strings.Repeat("output line of "+c.Name+"\n", 30), IsError: i%7 == 3})
		}
	}
	var in, read int64
	for _, u := range usages[2:] {
		in += u.InputTokens
		read += u.CacheReadTokens
	}
	return float64(read) / float64(in), usages
}

// TestAnthropicCacheReads: a 50-iteration run reads at least 90 % of its
// input tokens from the cache after the second call; with llm.cache:
// false nothing is cached.
func TestAnthropicCacheReads(t *testing.T) {
	for _, stream := range []bool{false, true} {
		share, usages := cachedRun(t, 50, true, stream)
		t.Logf("stream %v: %.1f %% of the input tokens of calls 3-50 read from the cache (call 50: %+v)", stream, 100*share, usages[49])
		if share < 0.90 {
			t.Errorf("stream %v: %.1f %% of the input read from the cache, want at least 90 %%", stream, 100*share)
		}
		if u := usages[0]; u.CacheReadTokens != 0 || u.CacheWriteTokens == 0 {
			t.Errorf("first call usage %+v: want a cache write and no read", u)
		}
	}
	if share, _ := cachedRun(t, 5, false, false); share != 0 {
		t.Errorf("llm.cache: false: %.1f %% read from the cache, want none", 100*share)
	}
}

// BenchmarkAnthropicCache50 reports the share of input tokens read from
// the cache in a 50-iteration run (calls 3-50) as cache-read-%.
func BenchmarkAnthropicCache50(b *testing.B) {
	var share float64
	for b.Loop() {
		share, _ = cachedRun(b, 50, true, false)
	}
	b.ReportMetric(100*share, "cache-read-%")
}
