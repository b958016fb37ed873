package llm

import "strings"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

// Cost is the price of u in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output) / 1e6
}

// Prices are the list prices of common models (USD per million tokens,
// uncached input), as published when this table was last updated. A model
// is found by its name or by the longest name it starts with, so dated
// snapshots ("gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929") match
// their family. Prices change: agent.yaml's llm.price overrides the table,
// and a model the table does not know costs 0.
var Prices = map[string]Price{
	"gpt-5":             {1.25, 10},
	"gpt-5-mini":        {0.25, 2},
	"gpt-5-nano":        {0.05, 0.40},
	"gpt-4.1":           {2, 8},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"gpt-4o":            {2.50, 10},
	"gpt-4o-mini":       {0.15, 0.60},
	"o3":                {2, 8},
	"o3-mini":           {1.10, 4.40},
	"o4-mini":           {1.10, 4.40},
	"claude-opus-4-5":   {5, 25},
	"claude-opus-4-1":   {15, 75},
	"claude-opus-4":     {15, 75},
	"claude-sonnet-4-5": {3, 15},
	"claude-sonnet-4":   {3, 15},
	"claude-3-7-sonnet": {3, 15},
	"claude-haiku-4-5":  {1, 5},
	"claude-3-5-haiku":  {0.80, 4},
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

// TotalCost is the cost of a run's usage per model. override, when not
// nil, is the agent's own price and applies to every model; otherwise each
// model is priced from Prices, and unknown models count 0.
func TotalCost(perModel map[string]Usage, override *Price) float64 {
	total := 0.0
	for model, u := range perModel {
		p, ok := PriceOf(model)
		if override != nil {
			p, ok = *override, true
		}
		if ok {
			total += p.Cost(u)
		}
	}
	return total
}
