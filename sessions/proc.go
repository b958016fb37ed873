package sessions

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// DefaultTimeout is the exec timeout when none is given (seeds/001 §2.2:
// default_command_timeout_ms = 10000).
const DefaultTimeout = 10 * time.Second

// killGrace is how long a timed-out process group has between SIGTERM and
// SIGKILL (seeds/001 §5.4).
const killGrace = 2 * time.Second

// TimeoutMessage is appended to stderr when a command timed out, worded
// as seeds/001 §5.4 tells the model.
func TimeoutMessage(d time.Duration) string {
	return "[ERROR: Command timed out after " + itoa(d.Milliseconds()) + "ms. Partial output is shown above.\n" +
		"You can retry with a longer timeout (delta-sessions exec --timeout DURATION).]\n"
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// runGroup runs cmd in a new process group and waits for it. When timeout
// (if positive) passes first, the whole group gets SIGTERM, then SIGKILL
// after killGrace, and timedOut is true. Background children that keep
// the output pipes open do not hold up the return for long (WaitDelay).
// started, when not nil, is told the group's id once it runs.
func runGroup(cmd *exec.Cmd, timeout time.Duration, started func(pgid int)) (timedOut bool, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.WaitDelay = 250 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return false, err
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer, stop := after(timeout)
	defer stop()
	select {
	case err := <-done:
		return false, exitOK(err)
	case <-timer:
	}
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err = <-done:
	case <-time.After(killGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-done
	}
	// Whatever survived SIGTERM in the group goes now too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return true, exitOK(err)
}

// exitOK treats a non-zero exit or a signal as a result, not an error.
func exitOK(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	return err
}

// exitCode returns the shell-style status of a finished command: its exit
// code, or 128+signal when a signal ended it.
func exitCode(cmd *exec.Cmd) int {
	ps := cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// after returns a channel that receives once d has passed, or nil (never
// ready) when d <= 0 means no limit, and the function that stops it.
func after(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}
