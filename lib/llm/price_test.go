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
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10}, true},
		{"openai/gpt-4.1-mini", Price{0.40, 1.60}, true},
		{"claude-sonnet-4-5-20250929", Price{3, 15}, true},
		{"claude-opus-4-1-20250805", Price{15, 75}, true},
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

func TestTotalCost(t *testing.T) {
	usage := map[string]Usage{
		"gpt-4o-mini": {InputTokens: 1_000_000, OutputTokens: 500_000},
		"local-llama": {InputTokens: 10, OutputTokens: 10},
	}
	if got, want := TotalCost(usage, nil), 0.15+0.30; math.Abs(got-want) > 1e-9 {
		t.Errorf("TotalCost(table) = %v, want %v", got, want)
	}
	own := &Price{Input: 1, Output: 2}
	if got, want := TotalCost(usage, own), 1+1+(10+20)/1e6; math.Abs(got-want) > 1e-9 {
		t.Errorf("TotalCost(override) = %v, want %v", got, want)
	}
}
