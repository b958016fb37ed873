package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// TestCostLimitStopsBeforeTheCall: with calls costing $1 each, a $2.50
// limit lets two calls through and stops the run before the third, which
// would take it to about $3: FAILED, error type max_cost, the ERROR event
// saying what it cost and how to go on.
func TestCostLimitStopsBeforeTheCall(t *testing.T) {
	// 1M input tokens, 400k of them read from the cache, at $1 per million
	// input and $0.25 per million cached: $0.60 + $0.10 + output 300k at
	// $1 = $1.
	u := llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 400_000, OutputTokens: 300_000}
	loop := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"x"}`)}, Usage: u, Model: "m-2025"}
	p := &scriptProvider{turns: []llm.Response{loop, loop, loop, loop}}
	e, j, _ := newEngine(t, p)
	e.LoopWindow = -1
	e.Cost = &CostLimit{MaxUSD: 2.5, Pricing: llm.Pricing{Models: map[string]llm.Price{"m": {Input: 1, Output: 1, CacheRead: 0.25}}}}
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Failed || out.Error == nil || out.Error.Type != ErrTypeMaxCost || out.Iterations != 2 {
		t.Fatalf("Start() = %+v, want FAILED max_cost after 2 iterations", out)
	}
	if len(p.reqs) != 2 {
		t.Errorf("%d model calls, want 2", len(p.reqs))
	}
	for _, want := range []string{"before model call 3", "$2.0000", "about $1.0000", "$2.5000"} {
		if !strings.Contains(out.Error.Message, want) {
			t.Errorf("message %q does not say %q", out.Error.Message, want)
		}
	}
	if !strings.Contains(out.Error.Details, "--max-cost") {
		t.Errorf("details %q do not say how to go on", out.Error.Details)
	}
	events, _ := j.Events()
	if ev := events[len(events)-2]; ev.Type != journal.Error || !strings.Contains(string(ev.ErrorDetails), `"type":"max_cost"`) {
		t.Errorf("event before ENGINE_END = %+v, want the max_cost ERROR", ev)
	}
	spent, next := e.Cost.Estimate(events)
	if spent < 1.999 || spent > 2.001 || next < 0.999 || next > 1.001 {
		t.Errorf("Estimate = %v, %v; want 2 and 1", spent, next)
	}
}

// TestCostLimitUnknownPrice: a model nobody prices costs nothing, so the
// limit never stops it.
func TestCostLimitUnknownPrice(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"x"}`)}, Usage: llm.Usage{InputTokens: 1 << 30}, Model: "local-llama"},
		{Content: "done", Model: "local-llama"}}}
	e, _, _ := newEngine(t, p)
	e.Cost = &CostLimit{MaxUSD: 0.01}
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v; want COMPLETED", out, err)
	}
}
