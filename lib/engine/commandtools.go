package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/tool"
)

// DefaultToolTimeout applies when neither the tool (timeout_ms) nor the
// agent (tool_timeout_ms) sets one. seeds/001 suggests 10 s for an
// interactive coding shell; Delta tools are whole programs (builds, test
// suites, sub-agents), so the default is 120 s.
const DefaultToolTimeout = 120 * time.Second

// CommandTools is the Toolbox of an agent's command tools: each call is
// built with tool.Build and run with execute.Run in its own process group,
// in the workspace, with the agent's filtered environment.
type CommandTools struct {
	tools   []tool.Tool
	env     []string
	timeout time.Duration
	output  *tool.OutputLimits // agent-wide output limits
	wrapper []string           // exec_wrapper: argv prefix of every call
	sandbox *sandbox.Rules     // what every call is confined to; nil: nothing
}

// NewCommandTools returns the toolbox of a's tools. environ is the process
// environment; secrets are filtered per a.Env before any tool sees it (the
// provider variables of .env never reach tools).
func NewCommandTools(a *agent.Agent, environ []string) *CommandTools {
	t := &CommandTools{tools: a.Tools, env: agent.FilterEnv(environ, a.Env), timeout: DefaultToolTimeout, output: a.Output, wrapper: a.ExecWrapper}
	if a.ToolTimeoutMS > 0 {
		t.timeout = time.Duration(a.ToolTimeoutMS) * time.Millisecond
	}
	return t
}

// Specs lists the tools as the model sees them.
func (c *CommandTools) Specs() []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(c.tools))
	for i, t := range c.tools {
		specs[i] = tool.Spec(t)
	}
	return specs
}

// Has reports whether the agent defines name.
func (c *CommandTools) Has(name string) bool {
	_, ok := c.find(name)
	return ok
}

func (c *CommandTools) find(name string) (tool.Tool, bool) {
	for _, t := range c.tools {
		if t.Name == name {
			return t, true
		}
	}
	return tool.Tool{}, false
}

// Close does nothing: command tools hold no processes between calls.
func (c *CommandTools) Close() error { return nil }

// Resolve is the command line a call would run, its words shell-quoted
// where needed ("cat 'a b.txt'"), as delta-engine gave hooks in
// resolved_command. false for an unknown tool or bad arguments.
func (c *CommandTools) Resolve(name string, args json.RawMessage) (string, bool) {
	t, ok := c.find(name)
	if !ok {
		return "", false
	}
	built, err := tool.Build(t, args)
	if err != nil {
		return "", false
	}
	words := make([]string, len(built.Argv))
	for i, w := range built.Argv {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " "), true
}

// shellQuote quotes w for sh when it holds anything but safe characters.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Call builds and runs one call. Bad arguments, a missing program, a
// non-zero exit and a timeout are all observations with IsError set; the
// error is only for failing to write the run's records.
func (c *CommandTools) Call(ctx context.Context, run RunInfo, callID, name string, args json.RawMessage) (ToolOutcome, error) {
	t, ok := c.find(name)
	if !ok {
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: unknown tool %q", name)}, nil
	}
	built, err := tool.Build(t, args)
	if err != nil {
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: bad arguments for %s: %v", name, err)}, nil
	}
	argv := built.Argv
	if len(c.wrapper) > 0 {
		// exec_wrapper: the call runs through docker exec, ssh, bwrap …
		argv = append(slices.Clip(c.wrapper), argv...)
	}
	if msg := checkArgLimits(name, argv, c.env, args); msg != "" {
		return ToolOutcome{IsError: true, ExitCode: -1, Observation: msg}, nil
	}
	timeout := c.timeout
	if t.TimeoutMS > 0 {
		timeout = time.Duration(t.TimeoutMS) * time.Millisecond
	}
	rec := runs.ToolRecord{CallID: callID, ToolName: name, Args: args, Argv: argv, Stdin: built.Stdin, Dir: run.WorkDir,
		StartedAt: time.Now().UTC(), TimeoutMS: timeout.Milliseconds()}
	// The run's variables (RunInfo.Env) and the call's: a tool finds its
	// agent's files and can keep per-run or per-call state apart.
	env := append(c.env[:len(c.env):len(c.env)], run.CallEnv(callID)...)
	// The output goes to the files ACTION_REQUEST named as it comes
	// (liveoutput.go); a stream that fits the capture is then kept inline
	// in the record, a longer one stays in its file (LogsWhenCut).
	spec := execute.Spec{Argv: argv, Dir: run.WorkDir, Env: env, Timeout: timeout,
		LogsWhenCut: true, MaxCapture: runs.ToolRecordInlineMax, Sandbox: c.sandbox}
	spec.StdoutFile, spec.StderrFile = liveFiles(run, callID)
	if built.Stdin != nil {
		spec.Stdin = []byte(*built.Stdin)
	}
	res, runErr := execute.Run(ctx, spec)
	rec.DurationMS, rec.ExitCode, rec.Signal, rec.TimedOut, rec.Canceled = res.Duration.Milliseconds(), res.ExitCode, res.Signal, res.TimedOut, res.Canceled
	rec.StdoutBytes, rec.StderrBytes = res.StdoutBytes, res.StderrBytes
	out := ToolOutcome{ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(), Stdout: res.Stdout, Stderr: res.Stderr}
	if runErr != nil {
		rec.Error = runErr.Error()
		out.ExitCode, rec.ExitCode = 127, 127
		out.IsError = true
		out.Observation = fmt.Sprintf("error: could not start %s: %v", name, runErr)
		if !errors.Is(runErr, os.ErrNotExist) && !errors.Is(runErr, exec.ErrNotFound) && !strings.Contains(runErr.Error(), "not found") {
			out.ExitCode, rec.ExitCode = -1, -1
		}
	} else {
		out.IsError = res.ExitCode != 0 || res.TimedOut || res.Canceled
		text, err := c.observation(run, t, &rec, res)
		if err != nil {
			return out, err
		}
		out.Observation, out.SandboxRefused = c.refusalNoted(text, out.IsError, res)
	}
	rel, err := WriteToolRecord(run, rec)
	if err != nil {
		return out, err
	}
	out.RecordPath = rel
	return out, nil
}

// observation is what the model sees of a command's output, cut to the
// tool's limits with a marker saying where all of it is; it completes
// rec with the output it keeps.
func (c *CommandTools) observation(run RunInfo, t tool.Tool, rec *runs.ToolRecord, res execute.Result) (string, error) {
	rec.Stdout, rec.StdoutFile = recordOutput(run, res.Stdout, res.StdoutLog)
	rec.Stderr, rec.StderrFile = recordOutput(run, res.Stderr, res.StderrLog)
	text := observe.Command{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode, Signal: res.Signal,
		TimedOut: res.TimedOut, TimeoutMS: rec.TimeoutMS}.Text()
	limits := outputLimits(c.output, t.Output)
	whole := observe.Whole{Bytes: res.StdoutBytes + res.StderrBytes, Lines: res.StdoutLines + res.StderrLines,
		Cut: res.StdoutLog != "" || res.StderrLog != ""}
	if observe.Fits(text, limits, whole) {
		return text, nil
	}
	// The model sees part of the output: it is told where all of it is.
	full, err := fullOutput(run, text, rec)
	if err != nil {
		return "", err
	}
	return observe.Cut(text, limits, whole, full), nil
}

// outputLimits are a command tool's output limits: the defaults, then the
// agent's output:, then the tool's.
func outputLimits(agentWide, own *tool.OutputLimits) observe.Limits {
	l := observe.CommandLimits
	for _, o := range []*tool.OutputLimits{agentWide, own} {
		if o == nil {
			continue
		}
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

// fullOutput says where the whole output of a cut observation is, as
// paths relative to the workspace (where tools run): the logs when the
// capture was cut, else text kept in the record's directory (OutputFile).
func fullOutput(run RunInfo, text string, rec *runs.ToolRecord) (string, error) {
	rel := func(p string) string {
		abs := filepath.Join(run.RunDir, p)
		if r, err := filepath.Rel(run.WorkDir, abs); err == nil {
			return r
		}
		return abs
	}
	if rec.StdoutFile != "" || rec.StderrFile != "" {
		var parts []string
		if rec.StdoutFile != "" {
			parts = append(parts, rel(rec.StdoutFile)+" (stdout)")
		} else if rec.Stdout != nil && *rec.Stdout != "" {
			parts = append(parts, "the record "+rel(rec.Path())+" (stdout)")
		}
		if rec.StderrFile != "" {
			parts = append(parts, rel(rec.StderrFile)+" (stderr)")
		}
		return strings.Join(parts, " and "), nil
	}
	kept, err := rec.Keep(run.RunDir, runs.OutputFile, []byte(text))
	if err != nil {
		return "", fmt.Errorf("write full tool output: %w", err)
	}
	rec.OutputFile = kept
	return rel(kept), nil
}

// recordOutput is how a record keeps one output stream: inline when the
// capture holds all of it, else the log (relative to the run directory)
// that does.
func recordOutput(run RunInfo, captured, log string) (*string, string) {
	if log == "" {
		return &captured, ""
	}
	if rel, err := filepath.Rel(run.RunDir, log); err == nil {
		return nil, filepath.ToSlash(rel)
	}
	return nil, log
}

// Merge returns one Toolbox of several: the first box that has a name wins,
// so pass the agent's command tools first and plugin toolboxes after.
func Merge(boxes ...Toolbox) Toolbox { return merged(boxes) }

type merged []Toolbox

func (m merged) Specs() []llm.ToolSpec {
	seen := map[string]bool{}
	var out []llm.ToolSpec
	for _, b := range m {
		for _, s := range b.Specs() {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func (m merged) Has(name string) bool {
	for _, b := range m {
		if b.Has(name) {
			return true
		}
	}
	return false
}

func (m merged) Call(ctx context.Context, run RunInfo, callID, name string, args json.RawMessage) (ToolOutcome, error) {
	for _, b := range m {
		if b.Has(name) {
			return b.Call(ctx, run, callID, name, args)
		}
	}
	return ToolOutcome{IsError: true, ExitCode: -1, Observation: fmt.Sprintf("error: unknown tool %q", name)}, nil
}

// Resolve asks the box that has name, when it can resolve.
func (m merged) Resolve(name string, args json.RawMessage) (string, bool) {
	for _, b := range m {
		if b.Has(name) {
			if r, ok := b.(Resolver); ok {
				return r.Resolve(name, args)
			}
			return "", false
		}
	}
	return "", false
}

func (m merged) Close() error {
	var errs []error
	for _, b := range m {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// Unsandboxed asks the box that has name, when it can run calls outside
// the sandbox (Escalator).
func (m merged) Unsandboxed(name string) (Toolbox, bool) {
	for _, b := range m {
		if b.Has(name) {
			if x, ok := b.(Escalator); ok {
				return x.Unsandboxed(name)
			}
			return nil, false
		}
	}
	return nil, false
}
