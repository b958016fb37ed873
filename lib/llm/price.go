package llm

import "strings"

// Price is what a model costs, in US dollars per million tokens. Prompt
// caching has prices of its own: reading a cached prefix costs a fraction
// of Input, and Anthropic charges writing one a premium over it. A cache
// price left at 0 means "not known": those tokens are priced as Input, so
// a cost is never under-estimated.
type Price struct {
	Input      float64 `json:"input" yaml:"input"`
	Output     float64 `json:"output" yaml:"output"`
	CacheRead  float64 `json:"cache_read,omitempty" yaml:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty" yaml:"cache_write,omitempty"`
}

// Cost is the price of u in US dollars: the uncached input at Input, the
// cache reads and writes at their prices, every output token (reasoning
// included) at Output.
func (p Price) Cost(u Usage) float64 {
	read, write := p.CacheRead, p.CacheWrite
	if read == 0 {
		read = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	uncached := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	return (float64(uncached)*p.Input + float64(u.CacheReadTokens)*read +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.Output) / 1e6
}

// Prices are the list prices of common models in US dollars per million
// tokens: input, output, cache read, cache write. They were copied from
// the providers' pricing pages as they stood in November 2025:
//
//   - OpenAI, https://openai.com/api/pricing: "cached input" is the cache
//     read; OpenAI charges nothing extra to write its cache, so the write
//     price is the input price.
//   - Anthropic, https://docs.anthropic.com/en/docs/about-claude/pricing:
//     the 5-minute cache write (1.25 × input) and the cache hit
//     (0.1 × input), the kind of cache Delta's breakpoints ask for.
//   - Google, https://ai.google.dev/gemini-api/docs/pricing: prompts up to
//     200k tokens; "context caching" is the cache read, and Gemini's
//     implicit caching costs nothing to write (input price).
//
// A model is found by its name or by the longest name it starts with, so
// dated snapshots ("gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929")
// match their family. Prices change: agent.yaml's llm.prices (per model)
// and llm.price (every model) override the table, and a model nobody
// prices costs 0.
var Prices = map[string]Price{
	"gpt-5":                 {1.25, 10, 0.125, 1.25},
	"gpt-5-mini":            {0.25, 2, 0.025, 0.25},
	"gpt-5-nano":            {0.05, 0.40, 0.005, 0.05},
	"gpt-4.1":               {2, 8, 0.50, 2},
	"gpt-4.1-mini":          {0.40, 1.60, 0.10, 0.40},
	"gpt-4.1-nano":          {0.10, 0.40, 0.025, 0.10},
	"gpt-4o":                {2.50, 10, 1.25, 2.50},
	"gpt-4o-mini":           {0.15, 0.60, 0.075, 0.15},
	"o3":                    {2, 8, 0.50, 2},
	"o3-mini":               {1.10, 4.40, 0.55, 1.10},
	"o4-mini":               {1.10, 4.40, 0.275, 1.10},
	"claude-opus-4-5":       {5, 25, 0.50, 6.25},
	"claude-opus-4-1":       {15, 75, 1.50, 18.75},
	"claude-opus-4":         {15, 75, 1.50, 18.75},
	"claude-sonnet-4-5":     {3, 15, 0.30, 3.75},
	"claude-sonnet-4":       {3, 15, 0.30, 3.75},
	"claude-3-7-sonnet":     {3, 15, 0.30, 3.75},
	"claude-haiku-4-5":      {1, 5, 0.10, 1.25},
	"claude-3-5-haiku":      {0.80, 4, 0.08, 1},
	"gemini-3-pro-preview":  {2, 12, 0.20, 2},
	"gemini-2.5-pro":        {1.25, 10, 0.125, 1.25},
	"gemini-2.5-flash":      {0.30, 2.50, 0.03, 0.30},
	"gemini-2.5-flash-lite": {0.10, 0.40, 0.01, 0.10},
}

// PriceOf finds model's price in Prices (see lookup).
func PriceOf(model string) (Price, bool) { return lookup(Prices, model) }

// lookup finds model in a table of model families: by exact name, else by
// the longest table name followed by '-' in model. A provider prefix such
// as "openai/" (OpenRouter's names) is ignored.
func lookup[T any](table map[string]T, model string) (T, bool) {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	if v, ok := table[model]; ok {
		return v, true
	}
	best := ""
	for name := range table {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		var zero T
		return zero, false
	}
	return table[best], true
}

// Pricing is where a run's prices come from, strongest first: the
// agent's prices per model (llm.prices, matched like the table), its one
// price for every model (llm.price), then the built-in Prices.
type Pricing struct {
	Models map[string]Price
	All    *Price
}

// Of is the price of model, and whether anyone knows it.
func (p Pricing) Of(model string) (Price, bool) {
	if pr, ok := lookup(p.Models, model); ok {
		return pr, true
	}
	if p.All != nil {
		return *p.All, true
	}
	return PriceOf(model)
}

// Cost is the cost of a run's usage per model; models without a price
// count 0.
func (p Pricing) Cost(perModel map[string]Usage) float64 {
	total := 0.0
	for model, u := range perModel {
		if pr, ok := p.Of(model); ok {
			total += pr.Cost(u)
		}
	}
	return total
}
