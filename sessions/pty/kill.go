package pty

import (
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/sys"
)

// killSession stops the program and everything it started, including
// jobs in other process groups: every process of its session gets
// SIGHUP and SIGTERM, and SIGKILL if still there a second later; then
// it waits (up to 5 s) until none of them is left.
func killSession(sid int) {
	pids := sessionPIDs(sid)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGHUP)
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	// Waiting for the session to empty, not for each pid to vanish: a
	// process that died stays a zombie until its parent reaps it (for the
	// program itself, this holder, which is busy here), and kill(pid, 0)
	// still finds a zombie, so waiting on that held every stop a whole
	// second.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && len(sessionPIDs(sid)) > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range append(alive(pids), sessionPIDs(sid)...) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	// It returns once everything it stopped is gone (a zombie waiting for
	// its reaper counts as gone), bounded: a caller that looks right after
	// `end` must not find a job still running.
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && len(sessionPIDs(sid)) > 0 {
		time.Sleep(20 * time.Millisecond)
	}
}

func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			out = append(out, p)
		}
	}
	return out
}

// sessionPIDs lists the live processes whose session id is sid
// (sys.SessionProcs: /proc on Linux, sysctl kern.proc.all on macOS).
func sessionPIDs(sid int) []int {
	var out []int
	for _, p := range sys.SessionProcs(sid) {
		out = append(out, p.PID)
	}
	return out
}
