package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// newRunResult assembles the --format json document (runs.Result) of an
// outcome. The cost comes from the price table of lib/llm, or the agent's
// llm.price.
func newRunResult(o driveOpts, out engine.Outcome, start, end time.Time) runs.Result {
	r := runs.Result{SchemaVersion: runs.ResultSchema, RunID: o.meta.RunID, Status: runs.Status(out.Status),
		Metrics: runs.ResultMetrics{Iterations: out.Iterations, DurationMS: end.Sub(start).Milliseconds(), StartTime: start, EndTime: end,
			Usage: runs.ResultUsage{Usage: out.Usage, ModelUsage: out.ModelUsage}},
		Metadata: runs.ResultRun{AgentName: o.agent.Name, WorkspacePath: o.meta.WorkDir}}
	if r.Metrics.Usage.ModelUsage == nil {
		r.Metrics.Usage.ModelUsage = map[string]llm.Usage{}
	}
	r.Metrics.Usage.TotalCostUSD = o.agent.LLM.Pricing().Cost(r.Metrics.Usage.ModelUsage)
	switch out.Status {
	case runs.Completed:
		r.Result = out.Result
	case runs.WaitingForInput:
		if q := out.Interaction; q != nil {
			r.Interaction = &runs.Request{Prompt: q.Prompt, InputType: q.InputType, Sensitive: q.Sensitive, CallID: q.CallID}
			for _, p := range q.Pending {
				r.Interaction.Pending = append(r.Interaction.Pending, runs.PendingCall{CallID: p.CallID, Prompt: p.Prompt})
			}
		}
	default:
		r.Error = (*runs.ResultError)(out.Error)
		if r.Error == nil {
			r.Error = &runs.ResultError{Type: strings.ToLower(string(out.Status)), Message: "run " + strings.ToLower(string(out.Status))}
		}
	}
	return r
}

// printResult writes stdout in the chosen format.
func printResult(o driveOpts, out engine.Outcome, start, end time.Time) error {
	switch o.format {
	case "stream-json":
		return newJSONEncoder(o.std.Out).Encode(streamResult(newRunResult(o, out, start, end)))
	case "claude-stream-json", "claude-json":
		return newJSONEncoder(o.std.Out).Encode(newClaudeResult(o, out, start, end))
	case "json":
		data, err := json.MarshalIndent(newRunResult(o, out, start, end), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.std.Out, "%s\n", data)
		return err
	case "raw":
		if out.Status != runs.Completed {
			return nil
		}
		_, err := fmt.Fprintln(o.std.Out, rawResult(out))
		return err
	default:
		_, err := fmt.Fprint(o.std.Out, textSummary(o, out, end.Sub(start)))
		return err
	}
}

// rawResult is the result alone: a string result unquoted, other JSON
// values as compact JSON.
func rawResult(out engine.Outcome) string {
	var s string
	if json.Unmarshal(out.Result, &s) == nil {
		return s
	}
	return string(out.Result)
}

// textSummary is the --format text block of seeds/000 §2.6.5.
func textSummary(o driveOpts, out engine.Outcome, d time.Duration) string {
	var b strings.Builder
	b.WriteString("--- Run Summary ---\n")
	fmt.Fprintf(&b, "Run ID:     %s\n", o.meta.RunID)
	fmt.Fprintf(&b, "Status:     %s\n", out.Status)
	fmt.Fprintf(&b, "Duration:   %s\n", humanDuration(d))
	if o.priorIterations > 0 {
		// Duration is this invocation's: so is the count, with the run's.
		fmt.Fprintf(&b, "Iterations: %d (%d in the whole run)\n", out.Iterations-o.priorIterations, out.Iterations)
	} else {
		fmt.Fprintf(&b, "Iterations: %d\n", out.Iterations)
	}
	fmt.Fprintf(&b, "Workspace:  %s\n", o.meta.WorkDir)
	b.WriteString("-------------------\n")
	switch out.Status {
	case runs.Completed:
		b.WriteString("Result:\n")
		var s string
		if json.Unmarshal(out.Result, &s) == nil {
			b.WriteString(s)
		} else {
			var pretty bytes.Buffer
			if json.Indent(&pretty, out.Result, "", "  ") == nil {
				b.Write(pretty.Bytes())
			} else {
				b.Write(out.Result)
			}
		}
		b.WriteString("\n")
	case runs.WaitingForInput:
		b.WriteString("Waiting for input:\n")
		if out.Interaction != nil {
			b.WriteString(out.Interaction.Prompt + "\n")
		}
	default:
		b.WriteString("Error:\n")
		if out.Error != nil {
			fmt.Fprintf(&b, "%s: %s\n", out.Error.Type, out.Error.Message)
			if out.Error.Details != "" {
				b.WriteString(out.Error.Details + "\n")
			}
		}
	}
	b.WriteString("-------------------\n")
	return b.String()
}

// humanDuration prints 2m 30s, 4.2s or 120ms.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
}
