package execute

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/execute/guard"
	"golang.org/x/sys/unix"
)

// Process is a long-lived command started by Start: a server the caller
// talks to over its stdin and stdout (an MCP server, say) for as long as it
// needs it. It runs under the guard like every command Run starts, so its
// life is bounded by the caller's: when the caller exits, even by SIGKILL,
// the guard kills the command and everything it started.
type Process struct {
	// Stdin writes to the command's standard input; Stdout reads its
	// standard output. Closing Stdin is how a well-behaved server is asked
	// to stop (Stop does it).
	Stdin  io.WriteCloser
	Stdout io.ReadCloser

	g        *guardProc
	grace    time.Duration
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	finish   sync.Once
	stopErr  error
}

// Start starts s.Argv under the guard with pipes for its stdin and stdout
// and its stderr written to stderr (nil: discarded). s.Stdin, s.Timeout,
// s.OutputDir, s.LogsWhenCut and s.MaxCapture do not apply: the command
// runs until it exits or Stop stops it. A command not found wraps
// exec.ErrNotFound.
func Start(s Spec, stderr io.Writer) (*Process, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, errors.New("start command: empty argv")
	}
	if s.KillGrace <= 0 {
		s.KillGrace = DefaultKillGrace
	}
	path, err := lookPath(s.Argv[0], s.Dir, s.Env)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", s.Argv[0], err)
	}
	if stderr == nil {
		stderr = io.Discard
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %q: stdin pipe: %w", s.Argv[0], err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start %q: stdout pipe: %w", s.Argv[0], err)
	}
	exe := guardPath()
	g, err := startLongGuard(exe, s, path, inR, outW, stderr)
	if err != nil && exe != selfExe {
		g, err = startLongGuard(selfExe, s, path, inR, outW, stderr)
	}
	// The command holds its own ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %q: %w", s.Argv[0], err)
	}
	p := &Process{Stdin: inW, Stdout: outR, g: g, grace: s.KillGrace, done: make(chan struct{})}
	go func() {
		p.waitErr = g.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// startLongGuard is startGuardExe for a command whose stdin and stdout are
// the given pipe ends.
func startLongGuard(exe string, s Spec, path string, stdin, stdout *os.File, stderr io.Writer) (*guardProc, error) {
	return startGuardExe(exe, Spec{Argv: s.Argv, Dir: s.Dir, Env: s.Env}, path, stdout, stderr, stdin)
}

// Pid is the guard's process id (the command is its only child).
func (p *Process) Pid() int { return p.g.cmd.Process.Pid }

// Done is closed when the command (and its guard) has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop asks the command to end and waits until it has: it closes stdin and
// waits up to wait for the command to exit on its own, then sends SIGTERM
// to its process tree, then after the kill grace SIGKILL. It returns the
// command's exit status (nil for 0) as the guard reports it. Stop may be
// called more than once and from several goroutines.
func (p *Process) Stop(wait time.Duration) error {
	p.stopOnce.Do(func() {
		p.Stdin.Close()
		if wait > 0 && !sleepUnless(p.done, wait) {
			return
		}
		p.g.ctlW.Write([]byte{guard.Term})
		if !sleepUnless(p.done, p.grace) {
			return
		}
		p.g.ctlW.Write([]byte{guard.Kill})
		if !sleepUnless(p.done, guardLastResort) {
			return
		}
		syscall.Kill(-p.g.cmd.Process.Pid, syscall.SIGKILL)
	})
	<-p.done
	p.finish.Do(func() {
		p.g.ctlW.Close()
		p.Stdout.Close()
		st, err := p.g.status(p.waitErr)
		switch {
		case err != nil:
			p.stopErr = err
		case st.Signal != 0:
			p.stopErr = fmt.Errorf("killed by %s", unix.SignalName(syscall.Signal(st.Signal)))
		case st.Code != 0:
			p.stopErr = fmt.Errorf("exit status %d", st.Code)
		}
	})
	return p.stopErr
}
