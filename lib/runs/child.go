package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// ChildCommand is a delta-run invocation another Delta program makes: a
// subagent's run, a workflow agent's turn, a chat's turn.
type ChildCommand struct {
	// Binary is the delta-run executable; Args follow it ("run" …,
	// "continue" …).
	Binary string
	Args   []string
	// Dir is the directory it starts in; Env its environment (nil: this
	// process's).
	Dir string
	Env []string
	// Stdin is its standard input (the message with -m -); nil: none.
	Stdin io.Reader
	// Stdout receives its Result (with --format json), Stderr its live
	// stream; nil discards them. A child meant to outlive its parent
	// writes to files: a pipe would kill it (SIGPIPE) when the parent
	// dies.
	Stdout, Stderr io.Writer
}

// Child is a delta-run process started by StartChild.
//
// It runs in a session of its own: a terminal's Ctrl-C reaches the parent
// only, which stops its children the orderly way (Interrupt), and a parent
// killed outright leaves them running, to be found again by their run's
// metadata (see Alive and OpenProcess).
type Child struct {
	cmd  *exec.Cmd
	done chan struct{}
	exit Exit
}

// Exit is how a child ended.
type Exit struct {
	// Code is its exit status (see the Exit constants), 128+N when signal
	// N killed it.
	Code int
	// Err is set when it could not be waited for at all (Code is then
	// ExitFailed).
	Err error
}

// Status is the run status the exit reports.
func (e Exit) Status() Status { return ExitStatus(e.Code) }

// StartChild starts c and returns at once; Done is closed when it ends.
func StartChild(c ChildCommand) (*Child, error) {
	cmd := exec.Command(c.Binary, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Binary, err)
	}
	ch := &Child{cmd: cmd, done: make(chan struct{})}
	go func() {
		ch.exit = exitOf(cmd.Wait())
		close(ch.done)
	}()
	return ch, nil
}

// exitOf reads the error of exec.Cmd.Wait.
func exitOf(err error) Exit {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Exit{}
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return Exit{Code: 128 + int(ws.Signal())}
		}
		return Exit{Code: ee.ExitCode()}
	}
	return Exit{Code: ExitFailed, Err: err}
}

// PID is the child's process id.
func (c *Child) PID() int { return c.cmd.Process.Pid }

// Done is closed once the child has ended and its output is copied.
func (c *Child) Done() <-chan struct{} { return c.done }

// Wait waits for the child to end.
func (c *Child) Wait() Exit {
	<-c.done
	return c.exit
}

// WaitContext waits for the child to end, interrupting it when ctx ends
// first (the run ends INTERRUPTED, as with Ctrl-C).
func (c *Child) WaitContext(ctx context.Context) Exit {
	select {
	case <-c.done:
	case <-ctx.Done():
		c.Interrupt()
	}
	return c.Wait()
}

// Interrupt asks the child to stop as Ctrl-C does (SIGINT): its run
// journals INTERRUPTED and can be continued. A child that has ended is
// left alone.
func (c *Child) Interrupt() {
	select {
	case <-c.done:
	default:
		_ = c.cmd.Process.Signal(syscall.SIGINT)
	}
}

// Stop interrupts the child and waits for it, killing it when it has not
// ended within timeout.
func (c *Child) Stop(timeout time.Duration) Exit {
	c.Interrupt()
	select {
	case <-c.done:
	case <-time.After(timeout):
		_ = c.cmd.Process.Kill()
	}
	return c.Wait()
}

// ErrChildEnded is AwaitRun's error for a child that ended before it held
// its run: it failed to start (its output says why).
var ErrChildEnded = errors.New("delta-run ended before its run started")

// awaitPoll is how often AwaitRun reads the run's metadata.
const awaitPoll = 10 * time.Millisecond

// AwaitRun waits until the child holds the run in runDir, that is until
// the run's metadata names the child's process, and returns that
// metadata. A child that ends first is an ErrChildEnded; one that does
// not take the run within timeout is an error; when ctx ends first the
// child is interrupted.
func (c *Child) AwaitRun(ctx context.Context, runDir string, timeout time.Duration) (*Metadata, error) {
	held := func() *Metadata {
		if m, err := ReadMetadata(runDir); err == nil && m.PID == c.PID() {
			return m
		}
		return nil
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(awaitPoll)
	defer tick.Stop()
	for {
		if m := held(); m != nil {
			return m, nil
		}
		select {
		case <-c.done:
			if m := held(); m != nil {
				return m, nil // done already
			}
			return nil, fmt.Errorf("%w (%s)", ErrChildEnded, c.cmd.ProcessState)
		case <-ctx.Done():
			c.Interrupt()
			return nil, fmt.Errorf("interrupted while delta-run (pid %d) was starting: %w", c.PID(), ctx.Err())
		case <-deadline.C:
			return nil, fmt.Errorf("delta-run (pid %d) did not take the run in %s within %s", c.PID(), runDir, timeout)
		case <-tick.C:
		}
	}
}
