package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

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
const deadlineMargin = sdk.StopGrace + time.Second

// shellArgs are the shell tool's parameters. Command is a string run by
// bash -c (sh when bash is missing) or, as codex sends it, an argv array
// run as it is.
type shellArgs struct {
	Command     json.RawMessage `json:"command"`
	TimeoutMS   int64           `json:"timeout_ms"`
	Description string          `json:"description"` // for people: kept in the call's record
	WorkDir     string          `json:"workdir"`
}

// shellTool runs one shell command the way command tools run
// (sdk.RunCommand): in its own process group (a timeout stops the whole
// process tree: SIGTERM, 2 s, SIGKILL), in the plugin's environment (which
// the host filtered of secrets) with the run's variables, and its output
// captured with bounded memory. The model sees stdout, stderr under a
// marker and the exit status, cut to a command tool's limits
// (sdk.CommandLimits) with a marker naming the file, in the call's
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
	// The SDK runs it as command tools run, under the agent's
	// exec_wrapper, and keeps the whole output in the call's record,
	// where the truncation marker points.
	res, err := sdk.RunCommand(ctx, req, sdk.Command{Argv: argv, Dir: dir,
		Timeout: time.Duration(timeout) * time.Millisecond, TimeoutParam: param, MaxTimeout: MaxShellTimeoutMS * time.Millisecond})
	if err != nil {
		return sdk.CallResult{}, err
	}
	text := res.Text
	if note != "" {
		text = note + "\n" + text
	}
	return sdk.CallResult{Output: text, IsError: res.Failed()}, nil
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
