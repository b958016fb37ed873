package main

import (
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
)

// withMaxCost lets --max-cost (when given) set cfg's cost limit.
func withMaxCost(cfg *agent.LLMConfig, usd *float64) error {
	if usd == nil {
		return nil
	}
	if *usd <= 0 {
		return cli.Errorf(cli.ExitUsage, "for example --max-cost 2.50", "--max-cost must be a positive number of US dollars, not %v", *usd)
	}
	cfg.MaxCostUSD = usd
	return nil
}
