package hooks

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// result is what running a hook command produced.
type result struct {
	exitCode int
	timedOut bool
	startErr error
	stdout   string
	stderr   string
}

// stderrTail is how much of a hook's stderr a failure or block reason
// quotes.
const stderrTail = 1000

// execHook runs argv in dir in its own process group with the payload on
// stdin; at the timeout the group gets SIGTERM, then SIGKILL.
func execHook(ctx context.Context, argv []string, dir string, env []string, stdin []byte, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.timedOut = true
	case errors.As(err, &exit):
		res.exitCode = exit.ExitCode()
	case err != nil:
		res.startErr = err
	}
	return res
}

// tail formats the end of a hook's stderr for a reason or failure.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > stderrTail {
		s = "…" + s[len(s)-stderrTail:]
	}
	return ": " + s
}
