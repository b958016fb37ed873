package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
)

// toolbox offers the workflow tools to a Delta run acting as one agent.
type toolbox struct {
	t        *Tools
	identity string
	own      bool
}

var _ engine.Toolbox = (*toolbox)(nil)

// Toolbox is the engine.Toolbox of the workflow tools, every call made as
// identity (the workflow agent the run is): the runner sets it, the model
// never chooses it. Close closes p.
func Toolbox(p Provider, identity string) engine.Toolbox {
	return &toolbox{t: NewTools(p), identity: identity, own: true}
}

func (b *toolbox) Specs() []llm.ToolSpec { return b.t.Specs() }
func (b *toolbox) Has(name string) bool  { return b.t.Has(name) }

func (b *toolbox) Close() error {
	if b.own {
		return b.t.p.Close()
	}
	return nil
}

// Call runs a workflow tool. A refused call (a rule, a bad argument) is an
// error observation the model can act on; so is a failure of the context
// (the run goes on). Every call leaves an io/tool_executions record.
func (b *toolbox) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	if !b.t.Has(name) {
		return engine.ToolOutcome{}, fmt.Errorf("tool %q: %w", name, ErrUnknownTool)
	}
	start := time.Now()
	text, err := b.t.Call(ctx, b.identity, name, args)
	out := engine.ToolOutcome{DurationMS: time.Since(start).Milliseconds()}
	rec := runs.ToolRecord{CallID: callID, ToolName: name, WorkflowAgent: b.identity, Args: args, StartedAt: start.UTC(), DurationMS: out.DurationMS}
	if err != nil {
		var te *ToolError
		if !errors.As(err, &te) {
			err = fmt.Errorf("workflow context: %w", err)
		}
		text = "Error: " + err.Error()
		out.IsError, out.ExitCode = true, 1
		rec.Error = err.Error()
	}
	out.Observation = observe.Truncate(text, observe.PluginMaxChars, 0)
	rec.ExitCode, rec.IsError, rec.Stdout, rec.StdoutBytes = out.ExitCode, out.IsError, &text, int64(len(text))
	if run.RunDir != "" {
		rel, werr := engine.WriteToolRecord(run, rec)
		if werr != nil {
			return out, werr
		}
		out.RecordPath = rel
	}
	return out, nil
}
