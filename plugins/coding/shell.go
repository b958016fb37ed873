package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/plugins/sdk"
)

// Shell timeouts: the default of a call that sets no timeout_ms (the
// plugin config's shell_timeout_ms overrides it) and the most a call may
// ask for.
const (
	DefaultShellTimeoutMS = 10_000
	MaxShellTimeoutMS     = 600_000
)

// deadlineMargin is kept between the shell's own timeout and the host's
// deadline for the whole call, so that the command is stopped (SIGTERM,
// the 2 s grace, SIGKILL) and its output returned before the host gives up.
const deadlineMargin = execute.DefaultKillGrace + time.Second

// shellArgs are the shell tool's parameters. Command is a string run by
// bash -c (sh when bash is missing) or, as codex sends it, an argv array
// run as it is.
type shellArgs struct {
	Command     json.RawMessage `json:"command"`
	TimeoutMS   int64           `json:"timeout_ms"`
	Description string          `json:"description"` // for people: kept in the call's record
	WorkDir     string          `json:"workdir"`
}

// shellTool runs one shell command the way command tools run: under the
// guard of lib/execute in its own process group (a timeout stops the whole
// process tree: SIGTERM, 2 s, SIGKILL), in the plugin's environment (which
// the host filtered of secrets) with the run's variables, and its output
// captured with bounded memory. The model sees stdout, stderr under a
// marker and the exit status, cut to a command tool's limits
// (observe.CommandLimits) with a marker naming the file, in the call's
// record directory, that holds all of it.
//
// param is the name of the timeout parameter in the model's profile
// (timeout_ms, Claude Code's timeout), which the timeout notes name.
func (t *Tools) shellTool(ctx context.Context, req sdk.CallRequest, args json.RawMessage, param string) (sdk.CallResult, error) {
	var a shellArgs
	if err := decode(args, &a); err != nil {
		return sdk.CallResult{}, err
	}
	argv, err := shellArgv(a.Command)
	if err != nil {
		return sdk.CallResult{}, err
	}
	// The agent's exec_wrapper (docker exec, ssh, bwrap) runs the command,
	// as it runs command tools.
	wrapper, err := sdk.ExecWrapper()
	if err != nil {
		return sdk.CallResult{}, err
	}
	argv = append(slices.Clip(wrapper), argv...)
	dir := req.WorkDir
	if a.WorkDir != "" {
		if dir, err = t.resolve(req.WorkDir, a.WorkDir); err != nil {
			return sdk.CallResult{}, err
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return sdk.CallResult{}, fmt.Errorf("%w: workdir %s is not a directory", ErrArguments, a.WorkDir)
		}
	}
	timeout, note := t.shellTimeout(a.TimeoutMS, req.Deadline, param)
	// The plugin's environment (the host filtered its secrets) and the
	// run's variables, as command tools get them. The whole output is kept
	// in the call's record directory, where the truncation marker points.
	spec := execute.Spec{Argv: argv, Dir: dir, Timeout: time.Duration(timeout) * time.Millisecond,
		Env: append(os.Environ(), req.Env...), OutputDir: req.RecordDir, LogsWhenCut: true}
	res, err := execute.Run(ctx, spec)
	if err != nil {
		return sdk.CallResult{}, fmt.Errorf("could not start the command: %w", err)
	}
	text := observe.Command{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode, Signal: res.Signal,
		TimedOut: res.TimedOut, TimeoutMS: timeout, TimeoutParam: param, MaxTimeoutMS: MaxShellTimeoutMS}.Text()
	if res.Canceled && !res.TimedOut {
		text += "\n[ERROR: the call was cancelled (the run stopped, or the agent's tool_timeout_ms ended the call) and the command was stopped.]"
	}
	if note != "" {
		text = note + "\n" + text
	}
	whole := observe.Whole{Bytes: res.StdoutBytes + res.StderrBytes, Lines: res.StdoutLines + res.StderrLines,
		Cut: res.StdoutLog != "" || res.StderrLog != ""}
	if !observe.Fits(text, observe.CommandLimits, whole) {
		if req.RecordDir == "" {
			text = observe.Truncate(text, observe.CommandLimits.MaxChars, observe.CommandLimits.MaxLines)
		} else {
			full, err := fullOutput(req, text, res)
			if err != nil {
				return sdk.CallResult{}, err
			}
			text = observe.Cut(text, observe.CommandLimits, whole, full)
		}
	}
	return sdk.CallResult{Output: text, IsError: res.ExitCode != 0 || res.TimedOut || res.Canceled}, nil
}

// shellArgv is the argv of a command: bash -c (or sh -c) for a string, the
// array itself for an argv array.
func shellArgv(raw json.RawMessage) ([]string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("%w: command is empty", ErrArguments)
		}
		sh := "sh"
		if _, err := exec.LookPath("bash"); err == nil {
			sh = "bash"
		}
		return []string{sh, "-c", s}, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil || len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%w: command must be a string (or an argv array of strings)", ErrArguments)
	}
	return argv, nil
}

// shellTimeout is a call's timeout in milliseconds: asked (0: the config's
// default), at most MaxShellTimeoutMS, and short enough to end before the
// host's deadline for the whole call. note tells the model when the
// timeout it asked for was lowered.
func (t *Tools) shellTimeout(asked int64, deadline time.Time, param string) (ms int64, note string) {
	ms = asked
	if ms <= 0 {
		ms = DefaultShellTimeoutMS
		if t.Config.ShellTimeoutMS > 0 {
			ms = int64(t.Config.ShellTimeoutMS)
		}
	}
	if ms > MaxShellTimeoutMS {
		ms = MaxShellTimeoutMS
		note = fmt.Sprintf("[%s %d is above the maximum; using %d]", param, asked, ms)
	}
	if !deadline.IsZero() {
		left := time.Until(deadline) - deadlineMargin
		if limit := left.Milliseconds(); limit < ms {
			ms = max(limit, 1000)
			note = fmt.Sprintf("[timeout lowered to %dms: the agent's tool_timeout_ms ends the whole call sooner]", ms)
		}
	}
	return ms, note
}

// fullOutput names the file(s) holding a cut command's whole output, from
// the workspace: the logs execute wrote in the call's record directory
// when its capture overflowed, or the text the model would have seen,
// kept there as output.txt.
func fullOutput(req sdk.CallRequest, text string, res execute.Result) (string, error) {
	rel := func(p string) string {
		if r, err := filepath.Rel(req.WorkDir, p); err == nil {
			return r
		}
		return p
	}
	if res.StdoutLog != "" || res.StderrLog != "" {
		var parts []string
		if res.StdoutLog != "" {
			parts = append(parts, rel(res.StdoutLog)+" (stdout)")
		}
		if res.StderrLog != "" {
			parts = append(parts, rel(res.StderrLog)+" (stderr)")
		}
		return strings.Join(parts, " and "), nil
	}
	p := filepath.Join(req.RecordDir, "output.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("keep the whole output: %w", err)
	}
	return rel(p), nil
}
