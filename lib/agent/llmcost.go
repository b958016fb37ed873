package agent

import "github.com/deltakit/delta/lib/llm"

// priceKeys are the keys of one model's entry under llm.prices, in US
// dollars per million tokens; the cache prices are optional.
var priceKeys = []string{"input_per_mtok", "output_per_mtok", "cache_read_per_mtok", "cache_write_per_mtok"}

// Pricing is where the run's costs come from: llm.prices, llm.price, then
// the built-in table (see llm.Pricing).
func (c LLMConfig) Pricing() llm.Pricing {
	return llm.Pricing{Models: c.Prices, All: c.Price}
}

// CacheOn reports whether prompt caching is asked for (llm.cache, on by
// default).
func (c LLMConfig) CacheOn() bool { return c.Cache == nil || *c.Cache }

// decodeCost reads the llm keys about caching and money: cache,
// max_cost_usd and prices.
func decodeCost(d *doc, f map[string]field, l *LLMConfig) {
	l.Cache = d.boolPtr(f["cache"], "llm.cache")
	l.MaxCostUSD = d.floatPtr(f["max_cost_usd"], "llm.max_cost_usd")
	if m := l.MaxCostUSD; m != nil && *m <= 0 {
		d.problem(f["max_cost_usd"].value, ErrInvalid, "for example  max_cost_usd: 2.50", "llm.max_cost_usd must be a positive number of US dollars")
	}
	l.Prices = decodePrices(d, f["prices"])
}

// decodePrices reads llm.prices: MODEL: {input_per_mtok, output_per_mtok,
// cache_read_per_mtok, cache_write_per_mtok}.
func decodePrices(d *doc, fl field) map[string]llm.Price {
	if fl.value == nil {
		return nil
	}
	out := map[string]llm.Price{}
	for model, mf := range d.fields(fl.value, "llm.prices", nil) {
		what := "llm.prices." + model
		f := d.fields(mf.value, what, priceKeys)
		var p [4]float64
		for i, k := range priceKeys {
			v := d.floatPtr(f[k], what+"."+k)
			if (v == nil && i < 2) || (v != nil && *v < 0) {
				d.problem(mf.value, ErrInvalid, "for example  prices: {claude-sonnet-4-5: {input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75}}",
					"%s needs input_per_mtok and output_per_mtok (cache prices are optional), in US dollars per million tokens, 0 or more", what)
				break
			}
			if v != nil {
				p[i] = *v
			}
		}
		out[model] = llm.Price{Input: p[0], Output: p[1], CacheRead: p[2], CacheWrite: p[3]}
	}
	return out
}
