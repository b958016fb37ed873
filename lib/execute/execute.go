// Package execute runs one external command the way every part of Delta
// needs it run: tools, hooks and context generators alike.
//
// Each command runs as the leader of a session of its own under a guard
// process (package guard; guardexec.go says how it is found), one guard for
// all the commands of a Delta process, started with the first. The guard
// makes the commands' lives bounded by ours: when a command exits, when it
// times out, when the context is cancelled and even when the calling
// process is killed with SIGKILL, the command and every process it started
// are killed. Only processes that deliberately detach with setsid(2)
// (daemons) are left alone. Output is streamed to files on disk when asked
// and kept in memory only as a bounded head and tail, so a command printing
// gigabytes cannot grow the caller's heap.
//
// Integration: the guard is the dedicated delta-exec-guard binary when it is
// installed next to the running executable or on PATH (make build and make
// install put it there); otherwise the current executable re-executed in a
// hidden mode, which this package's init function recognises. So any binary
// (or test binary) that imports execute can run commands, and there is
// nothing to call from main. The guard is started once per process; each
// command then costs what its own fork and exec cost plus a message to the
// guard and back (BenchmarkRunTrue against BenchmarkExecTrue).
//
// Background processes: when a command exits, whatever it left running in
// its session is killed. To leave a process running on purpose, detach it
// into a session of its own before the command exits:
// `setsid -w sh -c 'server >log 2>&1 </dev/null &'` (setsid -w returns once
// the server is detached; `setsid -f server` returns before, and a command
// that exits right after it may take the server with it).
package execute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/execute/guard"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/sys"
)

// Defaults applied when a Spec leaves the field zero.
const (
	DefaultKillGrace  = 2 * time.Second // seeds/001 §5.4
	DefaultMaxCapture = 256 << 10
)

// The logs Run writes in Spec.OutputDir, one per output stream. Records
// that hold a command's output (a tool call's, a hook's) name them so.
const (
	StdoutLogName = "stdout.log"
	StderrLogName = "stderr.log"
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
	// OutputDir, if set, receives the full output as StdoutLogName and
	// StderrLogName (unbounded, on disk). The directory is created.
	OutputDir string
	// StdoutFile and StderrFile, if set, are the logs of the two streams
	// instead of OutputDir's: each is written from its stream's first
	// byte (a stream that stays empty makes no file; the directory is
	// created then), so that others can follow a command still running.
	StdoutFile, StderrFile string
	// LogsWhenCut keeps a log only for an output that does not fit in
	// MaxCapture (the capture is then the whole of the others): OutputDir's
	// logs are created at the first byte the capture would drop, and
	// StdoutFile or StderrFile, written from the start, is removed when
	// the command ends. Creating files is most of what a short command
	// costs on some file systems. Result.StdoutLog and StderrLog name the
	// logs kept.
	LogsWhenCut bool
	// MaxCapture is how many bytes of stdout and of stderr are kept in
	// memory (first half and last half); 0 means 256 KiB.
	MaxCapture int
	// Sandbox, if set, confines the command and all it starts (package
	// sandbox): the process that execs it applies the rules first.
	Sandbox *sandbox.Rules
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
	res, err := runGuarded(ctx, s, path, stdout, stderr)
	stdout.close()
	stderr.close()
	if err != nil {
		return Result{}, fmt.Errorf("run %q: %w", s.Argv[0], err)
	}
	res.Stdout, res.StdoutBytes, res.StdoutLines = stdout.String(), stdout.total, stdout.lines()
	res.Stderr, res.StderrBytes, res.StderrLines = stderr.String(), stderr.total, stderr.lines()
	res.OutputError = errorsText(stdout.fileErr, stderr.fileErr)
	res.StdoutLog, res.StderrLog = stdout.path(), stderr.path()
	return res, nil
}

// runGuarded runs the command at path under the guard and waits for it and
// for its output.
func runGuarded(ctx context.Context, s Spec, path string, stdout, stderr io.Writer) (Result, error) {
	g, err := guardFor()
	if err != nil {
		return Result{}, err
	}
	c, err := command(s, path)
	if err != nil {
		return Result{}, err
	}
	streams, err := openStreams(s.Stdin)
	if err != nil {
		return Result{}, err
	}
	defer streams.close()
	gc, err := g.start(c, streams.stdin, streams.outW, streams.errW)
	streams.closeChildEnds()
	if err != nil {
		return Result{}, err
	}
	copied := streams.copy(s.Stdin, stdout, stderr)
	start := time.Now()
	if st, err := gc.started(); err != nil || st != nil {
		<-copied
		if err == nil {
			err = errors.New(st.Error)
		}
		return Result{}, err
	}
	done := make(chan struct{})
	reason := make(chan string, 1)
	go gc.watch(ctx, s, done, reason)
	st, err := gc.wait()
	close(done)
	res := Result{Duration: time.Since(start)}
	// The output ends with the command's session; only a daemon that
	// detached with our pipes still open can hold it longer.
	if !within(copied, waitDelay) {
		streams.closeReadEnds()
		<-copied
	}
	if err != nil {
		return Result{}, err
	}
	select {
	case r := <-reason:
		res.TimedOut = r == "timeout"
		res.Canceled = r == "cancel"
	default:
	}
	res.ExitCode = st.Code
	if st.Signal != 0 {
		res.ExitCode = 128 + st.Signal
		res.Signal = sys.SignalName(syscall.Signal(st.Signal))
	}
	return res, nil
}

// command is what the guard runs for s: the program at path with s's
// arguments, in s.Dir (else our working directory, which the guard's may
// no longer be), with s.Env (else ours).
func command(s Spec, path string) (guard.Command, error) {
	c := guard.Command{Path: path, Argv: s.Argv, Dir: s.Dir, Env: s.Env}
	if c.Dir == "" {
		var err error
		if c.Dir, err = os.Getwd(); err != nil {
			return c, fmt.Errorf("working directory: %w", err)
		}
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = dedupEnv(guard.WithoutEnv(c.Env))
	if s.Sandbox != nil {
		return sandboxed(c, *s.Sandbox)
	}
	return c, nil
}

// dedupEnv keeps the last of several entries of one variable, as os/exec
// does: callers add their own settings after the environment they
// inherit, and a program's getenv would find the first.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	if len(last) == len(env) {
		return env
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}

// watch enforces the timeout and ctx cancellation: SIGTERM to the
// command's processes, SIGKILL after the grace period, and as a last resort
// SIGKILL to its group from here if the guard stopped answering.
func (gc *guardedCmd) watch(ctx context.Context, s Spec, done <-chan struct{}, reason chan<- string) {
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
	gc.signal(guard.OpTerm)
	if within(done, s.KillGrace) {
		return
	}
	gc.signal(guard.OpKill)
	if within(done, guardLastResort) {
		return
	}
	gc.killLastResort()
}

// streams are the pipes between us and one command.
type streams struct {
	stdin           *os.File // the command's stdin: /dev/null or a pipe's read end
	inW             *os.File // nil for /dev/null
	outR, outW      *os.File
	errR, errW      *os.File
	childEndsClosed bool
}

func openStreams(input []byte) (*streams, error) {
	var st streams
	var err error
	if input == nil {
		st.stdin, err = os.Open(os.DevNull)
	} else {
		st.stdin, st.inW, err = os.Pipe()
	}
	if err == nil {
		st.outR, st.outW, err = os.Pipe()
	}
	if err == nil {
		st.errR, st.errW, err = os.Pipe()
	}
	if err != nil {
		st.close()
		return nil, fmt.Errorf("pipes: %w", err)
	}
	return &st, nil
}

// closeChildEnds closes our copies of the command's ends, so that its
// output reaches EOF when it (and its session) are gone.
func (st *streams) closeChildEnds() {
	st.stdin.Close()
	st.outW.Close()
	st.errW.Close()
	st.stdin, st.outW, st.errW = nil, nil, nil
}

func (st *streams) closeReadEnds() {
	st.outR.Close()
	st.errR.Close()
}

func (st *streams) close() {
	for _, f := range []*os.File{st.stdin, st.inW, st.outR, st.outW, st.errR, st.errW} {
		if f != nil {
			f.Close()
		}
	}
}

// copy feeds input to the command and its output to stdout and stderr;
// the channel closes when both outputs reached EOF (or were closed).
func (st *streams) copy(input []byte, stdout, stderr io.Writer) <-chan struct{} {
	if st.inW != nil {
		go func() {
			// A command that does not read its stdin makes this fail
			// with EPIPE, which is no error of the command's.
			st.inW.Write(input)
			st.inW.Close()
		}()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { io.Copy(stdout, st.outR); wg.Done() }()
	go func() { io.Copy(stderr, st.errR); wg.Done() }()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
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
	if s.StdoutFile != "" || s.StderrFile != "" {
		return liveCapture(s, s.StdoutFile, StdoutLogName), liveCapture(s, s.StderrFile, StderrLogName), nil
	}
	if s.OutputDir != "" && s.LogsWhenCut {
		stdout, stderr = newCapture(s.MaxCapture, nil), newCapture(s.MaxCapture, nil)
		stdout.spill, stderr.spill = filepath.Join(s.OutputDir, StdoutLogName), filepath.Join(s.OutputDir, StderrLogName)
		return stdout, stderr, nil
	}
	if s.OutputDir != "" {
		if err := os.MkdirAll(s.OutputDir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create output dir: %w", err)
		}
		if outF, err = os.Create(filepath.Join(s.OutputDir, StdoutLogName)); err != nil {
			return nil, nil, fmt.Errorf("create stdout log: %w", err)
		}
		if errF, err = os.Create(filepath.Join(s.OutputDir, StderrLogName)); err != nil {
			outF.Close()
			return nil, nil, fmt.Errorf("create stderr log: %w", err)
		}
	}
	return newCapture(s.MaxCapture, outF), newCapture(s.MaxCapture, errF), nil
}

// liveCapture is the capture of a stream logged to file from its first
// byte (OutputDir's log named name when file is ""; no log without
// either).
func liveCapture(s Spec, file, name string) *capture {
	c := newCapture(s.MaxCapture, nil)
	switch {
	case file != "":
		c.spill = file
	case s.OutputDir != "":
		c.spill = filepath.Join(s.OutputDir, name)
	default:
		return c
	}
	c.eager, c.dropWhole = true, s.LogsWhenCut
	return c
}
