package llm

import (
	"math"
	"testing"
)

func TestPriceOf(t *testing.T) {
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o-mini", Price{0.15, 0.60, 0.075, 0.15}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60, 0.075, 0.15}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10, 1.25, 2.50}, true},
		{"openai/gpt-4.1-mini", Price{0.40, 1.60, 0.10, 0.40}, true},
		{"claude-sonnet-4-5-20250929", Price{3, 15, 0.30, 3.75}, true},
		{"claude-opus-4-1-20250805", Price{15, 75, 1.50, 18.75}, true},
		{"gemini-2.5-flash-lite-preview-09-2025", Price{0.10, 0.40, 0.01, 0.10}, true},
		{"llama3.1:8b", Price{}, false},
		{"gpt-4", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := PriceOf(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PriceOf(%q) = %v, %v, want %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPriceCost: cached tokens are priced apart from the rest of the
// input; an unknown cache price falls back to the input price.
func TestPriceCost(t *testing.T) {
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	u := Usage{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 300_000, OutputTokens: 100_000, ReasoningTokens: 50_000}
	// 100k uncached at 3, 600k read at 0.30, 300k written at 3.75, 100k out at 15.
	if got, want := sonnet.Cost(u), 0.3+0.18+1.125+1.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost(%+v) = %v, want %v", u, got, want)
	}
	plain := Price{Input: 3, Output: 15}
	if got, want := plain.Cost(u), 3+1.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost without cache prices = %v, want %v (cached input at the input price)", got, want)
	}
}

func TestPricingCost(t *testing.T) {
	usage := map[string]Usage{
		"gpt-4o-mini":               {InputTokens: 1_000_000, OutputTokens: 500_000},
		"local-llama":               {InputTokens: 10, OutputTokens: 10},
		"claude-haiku-4-5-20251001": {InputTokens: 1_000_000, CacheReadTokens: 1_000_000},
	}
	if got, want := (Pricing{}).Cost(usage), 0.15+0.30+0.10; math.Abs(got-want) > 1e-9 {
		t.Errorf("Pricing{}.Cost = %v, want %v", got, want)
	}
	all := &Price{Input: 1, Output: 2}
	if got, want := (Pricing{All: all}).Cost(usage), 1+1+(10+20)/1e6+1; math.Abs(got-want) > 1e-9 {
		t.Errorf("Pricing{All}.Cost = %v, want %v", got, want)
	}
	// A per-model price beats the one for all models, by family.
	own := Pricing{All: all, Models: map[string]Price{"claude-haiku-4-5": {Input: 1, CacheRead: 0.5}}}
	if got, want := own.Cost(usage), 1+1+(10+20)/1e6+0.5; math.Abs(got-want) > 1e-9 {
		t.Errorf("Pricing{Models, All}.Cost = %v, want %v", got, want)
	}
}
