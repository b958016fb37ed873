// Package execute runs one external command the way every part of Delta
// needs it run: tools, hooks and context generators alike.
//
// Each command runs in its own process group under a tiny guard process
// (package guard; guardexec.go says how it is found). The guard makes the
// command's life bounded by ours: when the command exits, when it times out, when the context is cancelled and even when the calling process
// is killed with SIGKILL, the command and every process it started are
// killed. Only processes that deliberately detach with setsid(2) (daemons)
// are left alone. Output is streamed to files on disk when asked and kept in
// memory only as a bounded head and tail, so a command printing gigabytes
// cannot grow the caller's heap. Start runs a long-lived command the same
// way (a stdio server the caller talks to over pipes, such as an MCP
// server), with the same bound on its life.
//
// Integration: the guard is the dedicated delta-exec-guard binary when it is
// installed next to the running executable or on PATH (make build and make
// install put it there); otherwise the current executable re-executed in a
// hidden mode, which this package's init function recognises. So any binary
// (or test binary) that imports execute can run commands, and there is
// nothing to call from main. A command costs one extra exec: of the small
// guard binary (as cheap as starting any small Go program), or of the
// current binary (some ten milliseconds for one full of SDKs); see
// BenchmarkRunTrue and BenchmarkGuardStart.
//
// Background processes: when a command exits, whatever it left running in
// its session is killed. To leave a process running on purpose, detach it
// into a session of its own before the command exits:
// `setsid -w sh -c 'server >log 2>&1 </dev/null &'` (setsid -w returns once
// the server is detached; `setsid -f server` returns before, and a command
// that exits right after it may take the server with it).
package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/execute/guard"
	"golang.org/x/sys/unix"
)

// Defaults applied when a Spec leaves the field zero.
const (
	DefaultKillGrace  = 2 * time.Second // seeds/001 §5.4
	DefaultMaxCapture = 256 << 10
)

// waitDelay bounds how long Run waits for output pipes after the command and
// its process group are gone; only a detached daemon that kept our stdout
// open can make it matter.
const waitDelay = 2 * time.Second

// guardLastResort is how long after SIGKILL was requested Run waits for the
// guard itself before killing it directly.
const guardLastResort = 5 * time.Second

// ErrGuard reports a guard process that ended without saying how the
// command ended: not a Delta guard of this version.
var ErrGuard = errors.New("guard did not report the command's status")

// Spec describes one command to run.
type Spec struct {
	Argv  []string // Argv[0] is looked up in the PATH of Env (or ours)
	Stdin []byte   // nil: stdin is /dev/null
	Dir   string   // working directory; "" means ours
	// Env is the child's whole environment (build it with agent.FilterEnv); nil
	// passes ours on unfiltered, as os/exec does.
	Env []string
	// Timeout kills the command after this long; 0 means no timeout.
	Timeout time.Duration
	// KillGrace is the delay between SIGTERM and SIGKILL; 0 means 2s.
	KillGrace time.Duration
	// OutputDir, if set, receives the full output as stdout.log and
	// stderr.log (unbounded, on disk). The directory is created.
	OutputDir string
	// LogsWhenCut writes OutputDir's logs only for an output that does not
	// fit in MaxCapture (the capture is then the whole of the others):
	// creating files is most of what a short command costs on some file
	// systems. Result.StdoutLog and StderrLog name the logs written.
	LogsWhenCut bool
	// MaxCapture is how many bytes of stdout and of stderr are kept in
	// memory (first half and last half); 0 means 256 KiB.
	MaxCapture int
}

// Result is what a finished command did.
type Result struct {
	// ExitCode is the command's exit status; when a signal killed it,
	// 128+signal number as a shell reports it.
	ExitCode int
	// Signal names the signal that killed the command ("SIGKILL"), if any.
	Signal   string
	TimedOut bool // the Timeout expired and the command was killed
	Canceled bool // the context was cancelled and the command was killed
	Duration time.Duration
	// Stdout and Stderr are the in-memory captures: the whole output when it
	// fits in MaxCapture, otherwise head + an omission marker + tail.
	Stdout, Stderr string
	// StdoutBytes and StderrBytes are the true totals, StdoutLines and
	// StderrLines the true line counts.
	StdoutBytes, StderrBytes int64
	StdoutLines, StderrLines int64
	// OutputError reports a failure writing OutputDir files (the command
	// still ran); empty when all went well.
	OutputError string
	// StdoutLog and StderrLog are the OutputDir logs written, "" for none.
	StdoutLog, StderrLog string
}

// Run executes s and waits for it and all the processes it started. The
// error is non-nil only when the command could not be started; a command not
// found wraps exec.ErrNotFound. A cancelled ctx kills the command like a
// timeout does (SIGTERM, KillGrace, SIGKILL) and sets Result.Canceled.
func Run(ctx context.Context, s Spec) (Result, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return Result{}, errors.New("run command: empty argv")
	}
	if s.KillGrace <= 0 {
		s.KillGrace = DefaultKillGrace
	}
	if s.MaxCapture <= 0 {
		s.MaxCapture = DefaultMaxCapture
	}
	path, err := lookPath(s.Argv[0], s.Dir, s.Env)
	if err != nil {
		return Result{}, fmt.Errorf("run %q: %w", s.Argv[0], err)
	}
	stdout, stderr, err := newCaptures(s)
	if err != nil {
		return Result{}, err
	}
	defer stdout.close()
	defer stderr.close()

	g, err := startGuard(s, path, stdout, stderr)
	if err != nil {
		return Result{}, fmt.Errorf("run %q: %w", s.Argv[0], err)
	}
	start := time.Now()
	done := make(chan struct{})
	reason := make(chan string, 1)
	go g.watch(ctx, s, done, reason)
	waitErr := g.cmd.Wait()
	close(done)
	dur := time.Since(start)
	g.ctlW.Close()

	res := Result{Duration: dur}
	select {
	case r := <-reason:
		res.TimedOut = r == "timeout"
		res.Canceled = r == "cancel"
	default:
	}
	st, err := g.status(waitErr)
	if err != nil {
		return Result{}, fmt.Errorf("run %q: %w", s.Argv[0], err)
	}
	res.ExitCode = st.Code
	if st.Signal != 0 {
		res.ExitCode = 128 + st.Signal
		res.Signal = unix.SignalName(syscall.Signal(st.Signal))
	}
	res.Stdout, res.StdoutBytes, res.StdoutLines = stdout.String(), stdout.total, stdout.lines()
	res.Stderr, res.StderrBytes, res.StderrLines = stderr.String(), stderr.total, stderr.lines()
	res.OutputError = errorsText(stdout.fileErr, stderr.fileErr)
	res.StdoutLog, res.StderrLog = stdout.path(), stderr.path()
	return res, nil
}

// guardProc is the parent's handle on a running guard.
type guardProc struct {
	cmd     *exec.Cmd
	ctlW    *os.File // writing guard.Term asks for SIGTERM, guard.Kill for SIGKILL; EOF = we died
	statusR *os.File
}

// startGuard starts the guard running the command at path. When the
// dedicated guard binary cannot be started (uninstalled since we found it,
// say), the current executable serves as the guard instead.
func startGuard(s Spec, path string, stdout, stderr io.Writer) (*guardProc, error) {
	exe := guardPath()
	g, err := startGuardExe(exe, s, path, stdout, stderr, nil)
	if err != nil && exe != selfExe {
		g, err = startGuardExe(selfExe, s, path, stdout, stderr, nil)
	}
	return g, err
}

// stdin, when not nil, is the command's standard input instead of s.Stdin.
func startGuardExe(exe string, s Spec, path string, stdout, stderr io.Writer, stdin io.Reader) (*guardProc, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("control pipe: %w", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("status pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        append([]string{guard.Name, guard.Arg, path}, s.Argv...),
		Env:         append(guard.WithoutEnv(s.Env), guard.Env+"=1"),
		Dir:         s.Dir,
		Stdout:      stdout,
		Stderr:      stderr,
		ExtraFiles:  []*os.File{ctlR, statusW},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
		WaitDelay:   waitDelay,
	}
	if s.Env == nil {
		cmd.Env = append(guard.WithoutEnv(os.Environ()), guard.Env+"=1")
	}
	if s.Stdin != nil {
		cmd.Stdin = bytes.NewReader(s.Stdin)
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	err = cmd.Start()
	ctlR.Close()
	statusW.Close()
	if err != nil {
		ctlW.Close()
		statusR.Close()
		return nil, fmt.Errorf("start guard: %w", err)
	}
	return &guardProc{cmd: cmd, ctlW: ctlW, statusR: statusR}, nil
}

// watch enforces the timeout and ctx cancellation: SIGTERM to the group,
// SIGKILL after the grace period, and as a last resort SIGKILL to the guard
// itself if it stopped answering.
func (g *guardProc) watch(ctx context.Context, s Spec, done <-chan struct{}, reason chan<- string) {
	var timeout <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-done:
		return
	case <-timeout:
		reason <- "timeout"
	case <-ctx.Done():
		reason <- "cancel"
	}
	g.ctlW.Write([]byte{guard.Term})
	if !sleepUnless(done, s.KillGrace) {
		return
	}
	g.ctlW.Write([]byte{guard.Kill})
	if !sleepUnless(done, guardLastResort) {
		return
	}
	pid := g.cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGKILL)
}

// sleepUnless waits d and reports true, or returns false as soon as done
// is closed.
func sleepUnless(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
		return true
	}
}

// status reads the guard's report; when the guard was killed before
// writing one, its own wait status stands in. A guard that exited without a
// report does not speak our protocol.
func (g *guardProc) status(waitErr error) (guard.Status, error) {
	defer g.statusR.Close()
	var st guard.Status
	data, _ := io.ReadAll(g.statusR)
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &st); err != nil {
			return st, fmt.Errorf("read guard status %q: %w", data, err)
		}
		if st.Error != "" {
			return st, errors.New(st.Error)
		}
		return st, nil
	}
	ws, ok := g.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok {
		return st, fmt.Errorf("guard ended without status: %v", waitErr)
	}
	if !ws.Signaled() {
		return st, fmt.Errorf("guard %s exited with status %d: %w (is it a delta-exec-guard from another Delta version?)", g.cmd.Path, ws.ExitStatus(), ErrGuard)
	}
	st.Signal = int(ws.Signal())
	return st, nil
}

func errorsText(errs ...error) string {
	if err := errors.Join(errs...); err != nil {
		return err.Error()
	}
	return ""
}

// newCaptures opens the two output sinks of s.
func newCaptures(s Spec) (stdout, stderr *capture, err error) {
	var outF, errF *os.File
	if s.OutputDir != "" && s.LogsWhenCut {
		stdout, stderr = newCapture(s.MaxCapture, nil), newCapture(s.MaxCapture, nil)
		stdout.spill, stderr.spill = filepath.Join(s.OutputDir, "stdout.log"), filepath.Join(s.OutputDir, "stderr.log")
		return stdout, stderr, nil
	}
	if s.OutputDir != "" {
		if err := os.MkdirAll(s.OutputDir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create output dir: %w", err)
		}
		if outF, err = os.Create(filepath.Join(s.OutputDir, "stdout.log")); err != nil {
			return nil, nil, fmt.Errorf("create stdout log: %w", err)
		}
		if errF, err = os.Create(filepath.Join(s.OutputDir, "stderr.log")); err != nil {
			outF.Close()
			return nil, nil, fmt.Errorf("create stderr log: %w", err)
		}
	}
	return newCapture(s.MaxCapture, outF), newCapture(s.MaxCapture, errF), nil
}
