package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/plugins/proto"
)

// markerRoom lets a plugin's own cut through unchanged: at most
// observe.PluginMaxChars of text plus the marker that says what was cut.
// Cutting it again would put a second marker in place of the first,
// which holds the real totals and the file that keeps the whole output.
const markerRoom = 2000

// capOutput is the safety net for plugins that do not bound their output.
func capOutput(out string) string {
	if utf8.RuneCountInString(out) <= observe.PluginMaxChars+markerRoom {
		return out
	}
	return observe.Truncate(out, observe.PluginMaxChars, 0)
}

// Toolbox is the engine.Toolbox of a run's tool plugins.
type Toolbox struct {
	h     *Host
	own   bool // Close closes h
	specs []llm.ToolSpec
	// by maps a tool name to its plugin's client; plugin its plugin name.
	by     map[string]*Client
	plugin map[string]string
	// params is each tool's parameter schema, checked before a call.
	params map[string]json.RawMessage
}

var _ engine.Toolbox = (*Toolbox)(nil)

// NewToolbox resolves refs, starts each plugin and lists its tools; Close
// stops the processes. Use Host.Toolbox to share processes with hook
// plugins.
func NewToolbox(ctx context.Context, refs []agent.PluginRef, opts Options) (*Toolbox, error) {
	h, err := New(refs, opts)
	if err != nil {
		return nil, err
	}
	tb, err := h.Toolbox(ctx)
	if err != nil {
		h.Close()
		return nil, err
	}
	tb.own = true
	return tb, nil
}

// Toolbox starts the plugins listed in agent.yaml and lists their tools,
// keeping only a plugin's selected subset (PluginRef.Tools) when given. A
// name served by two plugins goes to the first listed; a selected tool the
// plugin does not serve is an error.
func (h *Host) Toolbox(ctx context.Context) (*Toolbox, error) {
	tb := &Toolbox{h: h, by: map[string]*Client{}, plugin: map[string]string{}, params: map[string]json.RawMessage{}}
	for _, name := range h.order {
		ref := h.refs[name]
		c, err := h.client(name)
		if err != nil {
			return nil, err
		}
		specs, _, err := c.Tools(ctx)
		if err != nil {
			return nil, err
		}
		served := map[string]bool{}
		for _, s := range specs {
			served[s.Name] = true
			if len(ref.Tools) > 0 && !slices.Contains(ref.Tools, s.Name) {
				continue
			}
			if _, taken := tb.by[s.Name]; taken {
				continue
			}
			params := s.Parameters
			if len(params) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tb.specs = append(tb.specs, llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: params})
			tb.by[s.Name] = c
			tb.plugin[s.Name] = name
			tb.params[s.Name] = params
		}
		for _, want := range ref.Tools {
			if !served[want] {
				return nil, fmt.Errorf("plugin %q (%s) has no tool %q", name, ref.Source, want)
			}
		}
	}
	return tb, nil
}

// Specs lists the plugin tools in agent.yaml order.
func (t *Toolbox) Specs() []llm.ToolSpec { return slices.Clone(t.specs) }

// Has reports whether a plugin serves the tool.
func (t *Toolbox) Has(name string) bool { _, ok := t.by[name]; return ok }

// StreamsOutput: a plugin tool may run commands, whose output the SDK
// writes to the call's output files as it comes (engine.OutputStreamer).
func (t *Toolbox) StreamsOutput(name string) bool { return t.Has(name) }

// Plugin names the plugin serving tool name ("" if none).
func (t *Toolbox) Plugin(name string) string { return t.plugin[name] }

// Call runs one tool call in its plugin, after checking its arguments
// against the tool's parameter schema (unknown, missing and mistyped
// top-level parameters become an error observation without calling the
// plugin). A plugin failure (crash, hang past
// the timeout, error) becomes an error observation and the run goes on;
// the returned error is only for a name no plugin serves.
func (t *Toolbox) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	c, ok := t.by[name]
	if !ok {
		return engine.ToolOutcome{}, fmt.Errorf("tool %q: %w", name, errNoSuchTool)
	}
	return t.call(ctx, c, t.h.opts.Sandbox, run, callID, name, args)
}

// call runs one call of tool name in the plugin process of c, which the
// sandbox confines to rules (nil: unconfined; nothing is then noted as
// the sandbox's refusal).
func (t *Toolbox) call(ctx context.Context, c *Client, rules *sandbox.Rules, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	if err := checkArgs(t.params[name], args); err != nil {
		return engine.ToolOutcome{Observation: "error: " + err.Error(), IsError: true, ExitCode: 1}, nil
	}
	timeout := t.h.opts.TimeoutMS
	if timeout <= 0 && run.Agent != nil {
		timeout = run.Agent.ToolTimeoutMS
	}
	if timeout <= 0 {
		timeout = DefaultTimeoutMS
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Millisecond)
	defer cancel()
	rec := runs.ToolRecord{CallID: callID, ToolName: name, Plugin: t.plugin[name], Args: args, StartedAt: time.Now().UTC(),
		TimeoutMS: int64(timeout)}
	req := &proto.ExecuteRequest{Name: name, ArgumentsJson: args, Workdir: run.WorkDir, CallId: callID, RunId: run.RunID,
		Env: run.CallEnv(callID)}
	if run.RunDir != "" {
		// The plugin keeps what it wants kept with the record (a whole
		// output it cut) in the record's directory, made for the call.
		dir, err := rec.ReserveDir(run.RunDir)
		if err != nil {
			return engine.ToolOutcome{}, err
		}
		defer rec.ReleaseDir(run.RunDir)
		req.RecordDir = dir
	}
	res, err := c.Execute(ctx, req)
	out := engine.ToolOutcome{DurationMS: time.Since(rec.StartedAt).Milliseconds()}
	rec.DurationMS = out.DurationMS
	if err != nil {
		out.Observation, out.IsError, out.ExitCode = "error: "+err.Error(), true, 1
		rec.Error = err.Error()
	} else {
		out.Observation, out.IsError, out.Data, out.Parts = capOutput(res.Output), res.IsError, res.Data, res.Parts
		if res.IsError {
			out.ExitCode = 1
			out.Observation, out.SandboxRefused = refusalNoted(rules, out.Observation)
		}
		rec.StdoutBytes = int64(len(res.Output))
		if len(res.Data) > 0 {
			rec.Data = json.RawMessage(res.Data)
		}
	}
	rec.ExitCode, rec.IsError = out.ExitCode, out.IsError
	if run.RunDir == "" {
		return out, nil
	}
	// The same record a command tool gets: the full output inline, or
	// beside it when long, whatever the model was shown.
	switch {
	case err != nil:
	case len(res.Output) <= runs.ToolRecordInlineMax:
		rec.Stdout = &res.Output
	default:
		if rec.StdoutFile, err = rec.Keep(run.RunDir, execute.StdoutLogName, []byte(res.Output)); err != nil {
			return out, err
		}
	}
	rel, err := engine.WriteToolRecord(run, rec)
	if err != nil {
		return out, err
	}
	out.RecordPath = rel
	return out, nil
}

// Close stops the plugin processes when the toolbox owns its Host (made by
// NewToolbox); a Host's own Toolbox leaves that to Host.Close.
func (t *Toolbox) Close() error {
	if t.own {
		return t.h.Close()
	}
	return nil
}
