package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/deltakit/delta/lib/sandbox"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures Start.
type Options struct {
	// Environ is the engine's environment: the base of a stdio server's
	// (filtered, see ServerEnv) and where ${VAR} in env and headers is
	// looked up.
	Environ []string
	// Dir is a stdio server's working directory (the workspace).
	Dir string
	// Stderr receives the servers' stderr, prefixed, when Verbose.
	Stderr  io.Writer
	Verbose bool
	// StartTimeout bounds starting every server and listing its tools;
	// 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// ToolTimeout is a call's timeout when the server's entry sets none
	// (the agent's tool_timeout_ms); 0 means engine.DefaultToolTimeout.
	ToolTimeout time.Duration
	// Output is the agent-wide output limits (agent.yaml output:).
	Output *tool.OutputLimits
	// Sandbox confines every stdio server and all it starts; nil: nothing.
	Sandbox *sandbox.Rules

	// transports replaces a server's connection by name (tests: the SDK's
	// in-memory transport).
	transports map[string]sdk.Transport
}

// DefaultStartTimeout bounds a server's start (npx may download it first).
const DefaultStartTimeout = 60 * time.Second

// Toolbox is the engine.Toolbox of a run's MCP servers.
type Toolbox struct {
	servers  []*server
	warnings []string
	specs    []llm.ToolSpec
	by       map[string]route
	opts     Options
	closed   sync.Once
}

// route is where a model-visible name leads.
type route struct {
	s    *server
	tool string // the server's own name of the tool
}

var _ engine.Toolbox = (*Toolbox)(nil)

// ToolName is the name the model sees for a server's tool.
func ToolName(server, tool string) string { return server + agent.MCPSeparator + tool }

// Start starts (or reaches) every server at once, initializes each and
// lists its tools; Close stops them. A server that fails to start, a
// selected tool it does not have, or a model-visible name that is too long
// is an error wrapping ErrStart, after every server is stopped again.
func Start(ctx context.Context, servers []agent.MCPServer, opts Options) (*Toolbox, error) {
	tb := &Toolbox{by: map[string]route{}, opts: opts}
	if len(servers) == 0 {
		return tb, nil
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	tb.servers = make([]*server, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, cfg := range servers {
		wg.Go(func() {
			s, err := connect(ctx, cfg, opts)
			if err == nil {
				tb.servers[i] = s
				err = s.list(ctx)
			}
			if err != nil {
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					err = fmt.Errorf("no answer within %s: %w", opts.StartTimeout, err)
				}
				where := cfg.URL
				if where == "" {
					where = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
				}
				errs[i] = fmt.Errorf("%s: mcp server %q (%s): %w: %w", cfg.Source, cfg.Name, where, ErrStart, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Close()
		return nil, err
	}
	for _, cfg := range servers {
		tb.warnings = append(tb.warnings, unsetWarnings(cfg, opts.Environ)...)
	}
	for _, s := range tb.servers {
		tb.warnings = append(tb.warnings, s.warnings...)
		for _, t := range s.tools {
			// Model APIs accept letters, digits, '_' and '-' in a name:
			// anything else (a dot, a slash) becomes '_'.
			name := ToolName(s.cfg.Name, strings.Map(nameRune, t.Name))
			if first, dup := tb.by[name]; dup {
				tb.warnings = append(tb.warnings, fmt.Sprintf("[WARNING] %s: mcp server %q has tools %q and %q, both %s to the model: only %q is offered",
					s.cfg.Source, s.cfg.Name, first.tool, t.Name, name, first.tool))
				continue
			}
			schema, _ := json.Marshal(t.InputSchema)
			if len(schema) == 0 || string(schema) == "null" {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tb.specs = append(tb.specs, llm.ToolSpec{Name: name, Description: t.Description, Parameters: schema})
			tb.by[name] = route{s: s, tool: t.Name}
		}
	}
	return tb, nil
}

// list fetches the server's tools and applies the entry's tools and
// exclude lists.
func (s *server) list(ctx context.Context) error {
	served := map[string]bool{}
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return s.explain(fmt.Errorf("list tools: %w", err))
		}
		served[t.Name] = true
		if len(s.cfg.Tools) > 0 && !slices.Contains(s.cfg.Tools, t.Name) || slices.Contains(s.cfg.Exclude, t.Name) {
			continue
		}
		if name := ToolName(s.cfg.Name, t.Name); len(name) > 64 {
			return fmt.Errorf("tool %q: the name the model would see, %q, is longer than the 64 characters model APIs accept; use a shorter server name or leave the tool out with exclude: [%s]", t.Name, name, t.Name)
		}
		s.tools = append(s.tools, t)
	}
	have := make([]string, 0, len(served))
	for n := range served {
		have = append(have, n)
	}
	slices.Sort(have)
	var missing []string
	for _, want := range s.cfg.Tools {
		if !served[want] {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("it has no tool %s (it has: %s)", strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	// An exclude naming no tool (a typo, a tool the server dropped)
	// excludes nothing: said, not an error, so that a server's update
	// does not stop the agent.
	for _, name := range s.cfg.Exclude {
		if !served[name] {
			s.warnings = append(s.warnings, fmt.Sprintf("[WARNING] %s: mcp server %q has no tool %q to exclude (it has: %s)", s.cfg.Source, s.cfg.Name, name, strings.Join(have, ", ")))
		}
	}
	return nil
}

// unsetWarnings names the variables an entry's env or headers values take
// from environ that are not set there: the server would get "" (a missing
// key is easier to see here than in the server's own error).
func unsetWarnings(cfg agent.MCPServer, environ []string) []string {
	set := map[string]bool{}
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok {
			set[k] = true
		}
	}
	var out []string
	check := func(what string, values map[string]string) {
		keys := make([]string, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			os.Expand(strings.ReplaceAll(values[k], "$$", ""), func(name string) string {
				if !set[name] {
					out = append(out, fmt.Sprintf("[WARNING] %s: mcp server %q: %s %s uses $%s, which is not set: the server gets an empty value", cfg.Source, cfg.Name, what, k, name))
				}
				return ""
			})
		}
	}
	check("env", cfg.Env)
	check("header", cfg.Headers)
	return out
}

// Warnings are what Start noticed but did not refuse: a variable an
// entry's env or headers use that is not set, an exclude entry naming a
// tool the server does not have, two tools whose names become one.
func (t *Toolbox) Warnings() []string { return slices.Clone(t.warnings) }

// nameRune keeps r in a model-visible tool name, or replaces it by '_'.
func nameRune(r rune) rune {
	if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
		return r
	}
	return '_'
}

// Shadow removes the tools whose names local (the agent's own tools)
// already has, and returns a warning for each: local tools win.
func (t *Toolbox) Shadow(local interface{ Has(name string) bool }) []string {
	var warnings []string
	specs := t.specs[:0]
	for _, s := range t.specs {
		if local.Has(s.Name) {
			r := t.by[s.Name]
			warnings = append(warnings, fmt.Sprintf("[WARNING] tool %q of mcp server %q is hidden by the agent's own tool of that name", r.tool, r.s.cfg.Name))
			delete(t.by, s.Name)
			continue
		}
		specs = append(specs, s)
	}
	t.specs = specs
	return warnings
}

// Specs lists the servers' tools as the model sees them.
func (t *Toolbox) Specs() []llm.ToolSpec { return slices.Clone(t.specs) }

// Has reports whether a server serves name.
func (t *Toolbox) Has(name string) bool { _, ok := t.by[name]; return ok }

// Server names the server of a model-visible tool name ("" if none).
func (t *Toolbox) Server(name string) string {
	if r, ok := t.by[name]; ok {
		return r.s.cfg.Name
	}
	return ""
}

// Pids lists the processes of the stdio servers.
func (t *Toolbox) Pids() []int {
	var pids []int
	for _, s := range t.servers {
		if s != nil && s.proc != nil {
			pids = append(pids, s.proc.Pid())
		}
	}
	return pids
}

// Close ends every session and stops the stdio servers.
func (t *Toolbox) Close() error {
	var errs []error
	t.closed.Do(func() {
		var wg sync.WaitGroup
		errs = make([]error, len(t.servers))
		for i, s := range t.servers {
			if s != nil {
				wg.Go(func() { errs[i] = s.close() })
			}
		}
		wg.Wait()
	})
	return errors.Join(errs...)
}

// Call calls the tool on its server with the call's timeout (the entry's
// timeout_ms, else the agent's, else the default). An MCP error result,
// a protocol error, a dead server and a timeout are all error
// observations; the error is only for failing to write the run's records.
func (t *Toolbox) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	r, ok := t.by[name]
	if !ok {
		return engine.ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: unknown tool %q", name)}, nil
	}
	timeout := t.opts.ToolTimeout
	if r.s.cfg.TimeoutMS > 0 {
		timeout = time.Duration(r.s.cfg.TimeoutMS) * time.Millisecond
	}
	if timeout <= 0 {
		timeout = engine.DefaultToolTimeout
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	rec := runs.ToolRecord{CallID: callID, ToolName: name, MCPServer: r.s.cfg.Name, MCPTool: r.tool, Args: args,
		StartedAt: time.Now().UTC(), TimeoutMS: timeout.Milliseconds()}
	text, media := r.call(ctx, timeout, &rec)
	out := engine.ToolOutcome{DurationMS: rec.DurationMS, IsError: rec.IsError, ExitCode: rec.ExitCode, Observation: text, Stdout: text, Parts: media}
	if run.RunDir == "" {
		return out, nil
	}
	var err error
	if out.Observation, err = t.keep(run, &rec, text); err != nil {
		return out, err
	}
	rel, err := engine.WriteToolRecord(run, rec)
	if err != nil {
		return out, err
	}
	out.RecordPath = rel
	return out, nil
}

// call calls the tool within timeout and returns the text the model is to
// see (whole) and the result's images and sounds, completing rec with the
// call's timing, result and error.
func (r route) call(ctx context.Context, timeout time.Duration, rec *runs.ToolRecord) (string, []llm.Part) {
	name := rec.ToolName
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := r.s.session.CallTool(cctx, &sdk.CallToolParams{Name: r.tool, Arguments: rec.Args})
	rec.DurationMS = time.Since(rec.StartedAt).Milliseconds()
	var text string
	var media []llm.Part
	switch {
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		rec.TimedOut = true
		text = fmt.Sprintf("error: %s did not answer within %d ms and was abandoned (timeout); its effects are unknown", name, timeout.Milliseconds())
	case err != nil && ctx.Err() != nil:
		rec.Canceled = true
		text = fmt.Sprintf("error: the call to %s was cancelled: %v", name, ctx.Err())
	case err != nil && tooBig(err):
		text = fmt.Sprintf("error: the result of %s was larger than %d MiB, the most Delta reads in one MCP message; the connection to mcp server %q is lost with it, so its tools cannot be called for the rest of this run. Ask for less at a time (a smaller page, a narrower query).",
			name, sdk.DefaultMaxLineLength>>20, r.s.cfg.Name)
	case err != nil && r.s.lost(err):
		text = fmt.Sprintf("error: mcp server %q is no longer reachable, so %s cannot be called for the rest of this run: %v", r.s.cfg.Name, name, r.s.explain(err))
	case err != nil:
		text = fmt.Sprintf("error: mcp server %q: %v", r.s.cfg.Name, r.s.explain(err))
	default:
		text, media = Render(res)
		rec.IsError = res.IsError
		if raw, merr := json.Marshal(res); merr == nil {
			rec.Result = raw
		}
	}
	if err != nil {
		rec.Error = err.Error()
		rec.IsError = true
	}
	if rec.IsError {
		rec.ExitCode = 1
	}
	rec.StdoutBytes = int64(len(text))
	return text, media
}

// keep keeps in rec's directory what the record cannot hold inline (a
// large result) and what the model sees only part of (the text, cut to
// the agent's output limits), and returns what the model sees.
func (t *Toolbox) keep(run engine.RunInfo, rec *runs.ToolRecord, text string) (string, error) {
	if len(rec.Result) > runs.ToolRecordInlineMax {
		kept, err := rec.Keep(run.RunDir, runs.ResultFile, rec.Result)
		if err != nil {
			return text, err
		}
		rec.ResultFile, rec.Result = kept, nil
	}
	limits := outputLimits(t.opts.Output)
	whole := observe.Whole{Bytes: int64(len(text)), Lines: lines(text)}
	if observe.Fits(text, limits, whole) {
		return text, nil
	}
	kept, err := rec.Keep(run.RunDir, runs.OutputFile, []byte(text))
	if err != nil {
		return text, err
	}
	rec.OutputFile = kept
	full := filepath.Join(run.RunDir, kept)
	if rel, err := filepath.Rel(run.WorkDir, full); err == nil {
		full = rel
	}
	return observe.Cut(text, limits, whole, full), nil
}

// tooBig reports whether err says a message from the server was over the
// SDK's size limit (sdk.DefaultMaxLineLength), which ends the connection.
func tooBig(err error) bool {
	return strings.Contains(err.Error(), "exceeded the configured maximum line length")
}

// lines counts text's lines as a command's output is counted: a last
// line without a newline counts, the empty string has none.
func lines(text string) int64 {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return int64(n)
}

// outputLimits are an MCP tool's limits: a command tool's defaults and the
// agent's output: block, as for command tools.
func outputLimits(agentWide *tool.OutputLimits) observe.Limits {
	l := observe.CommandLimits
	if o := agentWide; o != nil {
		if o.MaxChars != nil {
			l.MaxChars = *o.MaxChars
		}
		if o.MaxLines != nil {
			l.MaxLines = *o.MaxLines
		}
		if o.Mode != "" {
			l.Mode = o.Mode
		}
	}
	return l
}

// AgentOptions are the Options of an agent's servers: the agent's tool
// timeout and output limits, servers working in dir (the workspace).
func AgentOptions(a *agent.Agent, environ []string, dir string, stderr io.Writer, verbose bool) Options {
	return Options{Environ: environ, Dir: dir, Stderr: stderr, Verbose: verbose,
		ToolTimeout: time.Duration(a.ToolTimeoutMS) * time.Millisecond, Output: a.Output}
}

// Hint is what to do about a server that did not start.
const Hint = "check the entry's command (or url) and args; run the server by hand to see its error, or delta tool expand --check to test every server"
