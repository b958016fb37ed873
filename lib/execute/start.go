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
	"github.com/deltakit/delta/lib/sys"
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

	gc      *guardedCmd
	grace   time.Duration
	done    chan struct{} // closed when the command's session is gone
	status  guard.Status
	waitErr error

	stopOnce sync.Once
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
	if stderr == nil {
		stderr = io.Discard
	}
	path, err := lookPath(s.Argv[0], s.Dir, s.Env)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", s.Argv[0], err)
	}
	p, err := start(s, path, stderr)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", s.Argv[0], err)
	}
	return p, nil
}

func start(s Spec, path string, stderr io.Writer) (*Process, error) {
	g, err := guardFor()
	if err != nil {
		return nil, err
	}
	c, err := command(s, path)
	if err != nil {
		return nil, err
	}
	var ends [6]*os.File // inR, inW, outR, outW, errR, errW
	for i := 0; i < len(ends) && err == nil; i += 2 {
		ends[i], ends[i+1], err = os.Pipe()
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	if err == nil {
		var gc *guardedCmd
		gc, err = g.start(c, inR, outW, errW)
		// The command holds its own ends now.
		inR.Close()
		outW.Close()
		errW.Close()
		if err == nil {
			stderrDone := make(chan struct{})
			go func() { io.Copy(stderr, errR); errR.Close(); close(stderrDone) }()
			p := &Process{Stdin: inW, Stdout: outR, gc: gc, grace: s.KillGrace, done: make(chan struct{})}
			if st, err := gc.started(); err != nil || st != nil {
				inW.Close()
				outR.Close()
				if err == nil {
					err = errors.New(st.Error)
				}
				return nil, err
			}
			go func() {
				p.status, p.waitErr = gc.wait()
				// What the command wrote on stderr is all delivered by
				// Done (a server's last words explain its exit), unless a
				// process that left its session still holds stderr open.
				select {
				case <-stderrDone:
				case <-time.After(stderrDrain):
				}
				close(p.done)
			}()
			return p, nil
		}
	}
	for _, f := range ends {
		if f != nil {
			f.Close()
		}
	}
	return nil, fmt.Errorf("pipes: %w", err)
}

// stderrDrain bounds how long Done waits, once the command's session is
// gone, for the rest of its stderr.
const stderrDrain = time.Second

// Pid is the command's process id (and its session's).
func (p *Process) Pid() int { return p.gc.pid }

// Done is closed when the command, and whatever it left running in its
// session, has ended, and what it wrote on stderr has been written to the
// stderr writer Start was given.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop asks the command to end and waits until it has: it closes stdin and
// waits up to wait for the command to exit on its own, then sends SIGTERM
// to its processes, then after the kill grace SIGKILL. It returns the
// command's exit status (nil for 0) as the guard reports it. Stop may be
// called more than once and from several goroutines.
func (p *Process) Stop(wait time.Duration) error {
	p.stopOnce.Do(func() {
		p.Stdin.Close()
		if !within(p.done, wait) {
			p.gc.signal(guard.OpTerm)
			if !within(p.done, p.grace) {
				p.gc.signal(guard.OpKill)
				if !within(p.done, guardLastResort) {
					p.gc.killLastResort()
				}
			}
		}
		<-p.done
		p.Stdout.Close()
		switch st := p.status; {
		case p.waitErr != nil:
			p.stopErr = p.waitErr
		case st.Signal != 0:
			p.stopErr = fmt.Errorf("killed by %s", sys.SignalName(syscall.Signal(st.Signal)))
		case st.Code != 0:
			p.stopErr = fmt.Errorf("exit status %d", st.Code)
		}
	})
	return p.stopErr
}
