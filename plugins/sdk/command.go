package sdk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
)

// StopGrace is how long a command that timed out or was cancelled is
// given between SIGTERM and SIGKILL. A tool that bounds its command by
// the call's Deadline keeps at least this much (and a little more) in
// hand, so the command is stopped and its output returned before the
// host gives up on the call.
const StopGrace = 2 * time.Second

// Command is a command a tool runs for a call, the way Delta runs its
// command tools: never through a shell unless Argv asks for one, in its
// own process group, under the agent's exec_wrapper, with the plugin's
// environment (already filtered of secrets) plus the run's variables.
type Command struct {
	Argv  []string
	Dir   string // working directory; "" is the call's WorkDir
	Stdin []byte // nil: /dev/null
	// Timeout stops the command's whole process tree (SIGTERM, StopGrace,
	// SIGKILL); 0 means none.
	Timeout time.Duration
	// TimeoutParam names the call's own parameter that set Timeout
	// (the shell tool's timeout_ms), which the timeout note then tells
	// the model to raise, up to MaxTimeout; "" when the limit is the
	// agent's configuration.
	TimeoutParam string
	MaxTimeout   time.Duration
	// Limits is how much of the output the model reads; zero means
	// CommandLimits.
	Limits Limits
}

// CommandResult is a finished command.
type CommandResult struct {
	// Text is what the model reads: stdout, stderr under a marker, the
	// exit status when not 0 or the timeout note, cut to the command's
	// Limits with a marker naming the file in the call's record that
	// keeps the whole output.
	Text     string
	ExitCode int  // 128+N when signal N killed it, as a shell says
	TimedOut bool // Timeout expired and the command was stopped
	Canceled bool // ctx ended (the run stopped, or the host's deadline)
}

// Failed reports a command the model should see as a tool error.
func (r CommandResult) Failed() bool { return r.ExitCode != 0 || r.TimedOut || r.Canceled }

// RunCommand runs c for the call req and waits for it and every process
// it started. The error is non-nil only when the command could not be
// started (not found, an invalid exec_wrapper).
func RunCommand(ctx context.Context, req CallRequest, c Command) (CommandResult, error) {
	wrapper, err := ExecWrapper()
	if err != nil {
		return CommandResult{}, err
	}
	dir := c.Dir
	if dir == "" {
		dir = req.WorkDir
	}
	spec := execute.Spec{Argv: append(slices.Clip(wrapper), c.Argv...), Dir: dir, Stdin: c.Stdin,
		Timeout: c.Timeout, KillGrace: StopGrace, Env: append(os.Environ(), req.Env...),
		OutputDir: req.RecordDir, LogsWhenCut: true}
	res, err := execute.Run(ctx, spec)
	if err != nil {
		return CommandResult{}, fmt.Errorf("could not start the command: %w", err)
	}
	text := observe.Command{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode, Signal: res.Signal,
		TimedOut: res.TimedOut, TimeoutMS: c.Timeout.Milliseconds(), TimeoutParam: c.TimeoutParam,
		MaxTimeoutMS: c.MaxTimeout.Milliseconds()}.Text()
	if res.Canceled && !res.TimedOut {
		text += "\n[ERROR: the call was cancelled (the run stopped, or the agent's tool_timeout_ms ended the call) and the command was stopped.]"
	}
	limits := c.Limits
	if limits == (Limits{}) {
		limits = CommandLimits
	}
	whole := observe.Whole{Bytes: res.StdoutBytes + res.StderrBytes, Lines: res.StdoutLines + res.StderrLines,
		Cut: res.StdoutLog != "" || res.StderrLog != ""}
	text, err = req.cut(text, limits, whole, func() (string, error) { return logsOf(req, res) })
	if err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Text: text, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Canceled: res.Canceled}, nil
}

// logsOf names the logs holding a command's whole output when its
// capture overflowed ("" when it did not), relative to the workspace.
func logsOf(req CallRequest, res execute.Result) (string, error) {
	var parts []string
	if res.StdoutLog != "" {
		parts = append(parts, req.relative(res.StdoutLog)+" (stdout)")
	}
	if res.StderrLog != "" {
		parts = append(parts, req.relative(res.StderrLog)+" (stderr)")
	}
	return strings.Join(parts, " and "), nil
}

// relative is p from the call's workspace, the way the model names files.
func (r CallRequest) relative(p string) string {
	if rel, err := filepath.Rel(r.WorkDir, p); err == nil {
		return rel
	}
	return p
}

// Truncation modes: which part of a long output the model sees.
const (
	HeadTail = observe.HeadTail // the beginning and the end
	Head     = observe.Head     // the beginning (a page read from its start)
	Tail     = observe.Tail     // the end (search results)
)

// Limits is how much of a tool's output the model sees: at most MaxChars
// characters and MaxLines lines (0: no such limit), kept as Mode says
// (HeadTail when empty).
type Limits struct {
	MaxChars int
	MaxLines int
	Mode     string
}

// CommandLimits are what the model sees of a command's output unless
// the tool says otherwise: Delta's command tools' own limits.
var CommandLimits = Limits{MaxChars: observe.MaxChars, MaxLines: observe.MaxLines, Mode: HeadTail}

// Cut is what the model sees of a tool's output: within l the output
// itself; past l, the part l's mode keeps and one marker giving the whole
// output's size and the file in the call's record (RecordDir) that keeps
// all of it, so the model can read further there. Outside a run (no
// RecordDir) it is Truncate.
func (r CallRequest) Cut(output string, l Limits) (string, error) {
	return r.cut(output, l, observe.WholeOf(output), func() (string, error) { return "", nil })
}

// cut is Cut of an output whose real size is whole; logs names the files
// already holding it whole, if any; otherwise the text is kept as the
// record's output file.
func (r CallRequest) cut(output string, l Limits, whole observe.Whole, logs func() (string, error)) (string, error) {
	ol := observe.Limits(l)
	if ol.Mode == "" {
		ol.Mode = HeadTail
	}
	if observe.Fits(output, ol, whole) {
		return output, nil
	}
	if r.RecordDir == "" {
		return Truncate(output, l), nil
	}
	full, err := logs()
	if err != nil {
		return "", err
	}
	if full == "" {
		p := filepath.Join(r.RecordDir, runs.OutputFile)
		if err := os.WriteFile(p, []byte(output), 0o644); err != nil {
			return "", fmt.Errorf("keep the whole output in the call's record: %w", err)
		}
		full = r.relative(p)
	}
	return observe.Cut(output, ol, whole, full), nil
}

// Truncate shortens output to l with the markers of seeds/001 (how much
// was removed, no file to read it in): characters first, in l's mode,
// then lines, keeping the first and last. It is for outputs no run keeps.
func Truncate(output string, l Limits) string {
	switch l.Mode {
	case Tail:
		output = observe.TruncateTail(output, l.MaxChars)
	case Head:
		output = observe.TruncateHead(output, l.MaxChars)
	default:
		output = observe.Truncate(output, l.MaxChars, 0)
	}
	return observe.Truncate(output, 0, l.MaxLines)
}
