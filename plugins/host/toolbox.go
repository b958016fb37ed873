package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/proto"
)

// MaxObservationChars caps a plugin tool's output as the model sees it
// (lib/observe's PluginMaxChars).
const MaxObservationChars = observe.PluginMaxChars

// markerRoom lets a plugin's own cut through unchanged: at most
// MaxObservationChars of text plus the marker that says what was cut.
// Cutting it again would put a second marker in place of the first,
// which holds the real totals and the file that keeps the whole output.
const markerRoom = 2000

// capOutput is the safety net for plugins that do not bound their output.
func capOutput(out string) string {
	if utf8.RuneCountInString(out) <= MaxObservationChars+markerRoom {
		return out
	}
	return observe.Truncate(out, MaxObservationChars, 0)
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
	start := time.Now()
	res, err := c.Execute(ctx, &proto.ExecuteRequest{
		Name: name, ArgumentsJson: args, Workdir: run.WorkDir, CallId: callID, RunId: run.RunID,
	})
	out := engine.ToolOutcome{DurationMS: time.Since(start).Milliseconds()}
	rec := pluginRecord{CallID: callID, ToolName: name, Plugin: t.plugin[name], Args: args, StartedAt: start.UTC(),
		DurationMS: out.DurationMS, TimeoutMS: int64(timeout)}
	switch {
	case err != nil:
		out.Observation, out.IsError, out.ExitCode = "error: "+err.Error(), true, 1
		rec.Error = err.Error()
	default:
		out.Observation, out.IsError, out.Data = capOutput(res.Output), res.IsError, res.Data
		if res.IsError {
			out.ExitCode = 1
		}
		rec.StdoutBytes, rec.Data = len(res.Output), json.RawMessage(res.Data)
		if len(rec.Data) == 0 {
			rec.Data = nil
		}
	}
	rec.ExitCode, rec.IsError = out.ExitCode, out.IsError
	if run.RunDir != "" {
		// The same io/tool_executions record a command tool gets: the
		// full output inline, or beside it when long, whatever the model
		// was shown.
		base := engine.ToolRecordBase(start, name, callID)
		switch {
		case err != nil:
		case len(res.Output) <= engine.RecordInlineMax:
			rec.Stdout = &res.Output
		default:
			rec.StdoutFile = filepath.Join(runs.ToolExecutionsDir, base, "stdout.log")
			if werr := writeOutput(filepath.Join(run.RunDir, rec.StdoutFile), res.Output); werr != nil {
				return out, werr
			}
		}
		rel, werr := engine.WriteToolRecord(run, base, rec)
		if werr != nil {
			return out, werr
		}
		out.RecordPath = rel
	}
	return out, nil
}

// pluginRecord is the io/tool_executions record of a plugin tool call.
type pluginRecord struct {
	CallID      string          `json:"call_id"`
	ToolName    string          `json:"tool_name"`
	Plugin      string          `json:"plugin"`
	Args        json.RawMessage `json:"args"`
	StartedAt   time.Time       `json:"started_at"`
	DurationMS  int64           `json:"duration_ms"`
	TimeoutMS   int64           `json:"timeout_ms"`
	ExitCode    int             `json:"exit_code"`
	IsError     bool            `json:"is_error,omitempty"`
	StdoutBytes int             `json:"stdout_bytes"`
	Stdout      *string         `json:"stdout,omitempty"`
	StdoutFile  string          `json:"stdout_file,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// writeOutput writes a plugin call's full output, creating its folder.
func writeOutput(path, output string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write plugin output record: %w", err)
	}
	if err := os.WriteFile(path, []byte(output), 0o644); err != nil {
		return fmt.Errorf("write plugin output record: %w", err)
	}
	return nil
}

// Close stops the plugin processes when the toolbox owns its Host (made by
// NewToolbox); a Host's own Toolbox leaves that to Host.Close.
func (t *Toolbox) Close() error {
	if t.own {
		return t.h.Close()
	}
	return nil
}
