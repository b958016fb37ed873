package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// ErrTypeMaxCost: the run stopped before a model call that would have
// taken its cost past the limit (--max-cost, llm.max_cost_usd).
const ErrTypeMaxCost = "max_cost"

// CostLimit stops a run gracefully before the model call that would take
// its cost past MaxUSD. The cost is the whole run's, over every
// invocation, priced by Pricing from the usage its THOUGHTs record; the
// next call is estimated at the cost of the last one (a conversation only
// grows, and with prompt caching each call costs about what the one
// before it did). The first call of a run has nothing to estimate from
// and is always made.
type CostLimit struct {
	MaxUSD  float64
	Pricing llm.Pricing
}

// CostLimitOf is the limit of llm.max_cost_usd (--max-cost sets it), or
// nil when there is none.
func CostLimitOf(cfg agent.LLMConfig) *CostLimit {
	if cfg.MaxCostUSD == nil || *cfg.MaxCostUSD <= 0 {
		return nil
	}
	return &CostLimit{MaxUSD: *cfg.MaxCostUSD, Pricing: cfg.Pricing()}
}

// Estimate is what the run has cost so far and what its next model call
// is expected to cost, in US dollars.
func (c *CostLimit) Estimate(events []journal.Event) (spent, next float64) {
	_, perModel := SumUsage(events)
	spent = c.Pricing.Cost(perModel)
	for i := len(events) - 1; i >= 0; i-- {
		if ev := &events[i]; ev.Type == journal.Thought && ev.Usage != nil {
			if p, ok := c.Pricing.Of(ev.Model); ok {
				next = p.Cost(*ev.Usage)
			}
			break
		}
	}
	return spent, next
}

// overBudget fails the run, before model turn turn+1, when that call
// would take it past e.Cost; stop says it did.
func (e *Engine) overBudget(ctx context.Context, events []journal.Event, turn int) (out Outcome, stop bool, err error) {
	if e.Cost == nil {
		return Outcome{}, false, nil
	}
	spent, next := e.Cost.Estimate(events)
	if spent+next <= e.Cost.MaxUSD {
		return Outcome{}, false, nil
	}
	msg := fmt.Sprintf("stopped before model call %d: the run has cost $%.4f and the next call would cost about $%.4f (as much as the last), over the cost limit of $%.4f",
		turn+1, spent, next, e.Cost.MaxUSD)
	failed, err := e.failDetails(ctx, turn, ErrTypeMaxCost, errors.New(msg),
		"continue the run with a higher --max-cost (or llm.max_cost_usd in agent.yaml) to let it go on")
	if failed == nil {
		return Outcome{}, true, err
	}
	return *failed, true, err
}
