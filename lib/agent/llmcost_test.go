package agent

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/llm"
)

func TestLoadCostKeys(t *testing.T) {
	yaml := "llm:\n  model: claude-sonnet-4-5\n  cache: false\n  max_cost_usd: 2.5\n" +
		"  prices:\n    claude-sonnet-4-5: {input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75}\n" +
		"    local: {input_per_mtok: 0, output_per_mtok: 0}\n"
	a, err := Load(writeAgent(t, map[string]string{"agent.yaml": yaml}))
	if err != nil {
		t.Fatal(err)
	}
	if a.LLM.CacheOn() {
		t.Errorf("CacheOn() = true with llm.cache: false")
	}
	if a.LLM.MaxCostUSD == nil || *a.LLM.MaxCostUSD != 2.5 {
		t.Errorf("MaxCostUSD = %v, want 2.5", a.LLM.MaxCostUSD)
	}
	want := map[string]llm.Price{"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, "local": {}}
	if diff := cmp.Diff(want, a.LLM.Prices); diff != "" {
		t.Errorf("Prices (-want +got):\n%s", diff)
	}
	if p, ok := a.LLM.Pricing().Of("claude-sonnet-4-5-20250929"); !ok || p != want["claude-sonnet-4-5"] {
		t.Errorf("Pricing().Of(dated sonnet) = %v, %v", p, ok)
	}
	withCache, err := Load(writeAgent(t, map[string]string{"agent.yaml": "llm:\n  price: {input: 1, output: 2, cache_read: 0.1}\n"}))
	if err != nil || *withCache.LLM.Price != (llm.Price{Input: 1, Output: 2, CacheRead: 0.1}) {
		t.Errorf("llm.price with cache_read = %+v, %v", withCache.LLM.Price, err)
	}
	plain, err := Load(writeAgent(t, map[string]string{"agent.yaml": "llm:\n  model: m\n"}))
	if err != nil || !plain.LLM.CacheOn() || plain.LLM.MaxCostUSD != nil {
		t.Errorf("defaults: cache on %v, max cost %v, err %v; want on, none", plain.LLM.CacheOn(), plain.LLM.MaxCostUSD, err)
	}
	for _, bad := range []string{"max_cost_usd: 0", "max_cost_usd: -1", "cache: maybe",
		"prices: {m: {input_per_mtok: 1}}", "prices: {m: {input_per_mtok: 1, output_per_mtok: -2}}",
		"prices: {m: {input_per_mtok: 1, output_per_mtok: 2, cached: 1}}", "prices: [1]", "price: {input: 1, output: 1, cache_read: -1}"} {
		if _, err := Load(writeAgent(t, map[string]string{"agent.yaml": "llm:\n  " + bad + "\n"})); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Load(%s) error = %v, want a configuration error", bad, err)
		}
	}
}
