package runs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/sys"
)

// ErrNotRunning means a run has no live process: it is not RUNNING, or
// its recorded process is gone (or its pid belongs to another process).
var ErrNotRunning = errors.New("run is not running")

// NotRunningError is ErrNotRunning for one run, with the reason.
type NotRunningError struct {
	RunID, Why string
}

func (e *NotRunningError) Error() string {
	return fmt.Sprintf("run %s is not running: %s", e.RunID, e.Why)
}

// Is makes errors.Is(err, ErrNotRunning) true.
func (e *NotRunningError) Is(target error) bool { return target == ErrNotRunning }

// RunProcess is the live process of a RUNNING run, held through a handle
// bound to it (sys.Process: a pidfd on Linux, a kqueue on darwin): once
// opened and checked it names that process and no other, so a signal
// cannot reach a process that took over a recycled pid (on darwin, short
// of the race sys.Process describes).
type RunProcess struct {
	p   *sys.Process
	PID int
}

// OpenProcess returns the process driving the RUNNING run m on this host:
// a *NotRunningError when there is none, ErrOtherHost
// when the run was started on another host.
func OpenProcess(m *Metadata) (*RunProcess, error) {
	if m.Status != Running {
		return nil, &NotRunningError{m.RunID, fmt.Sprintf("it is %s", m.Status)}
	}
	if host, _ := os.Hostname(); m.Hostname != "" && m.Hostname != host {
		return nil, fmt.Errorf("%w: run %s runs on host %s", ErrOtherHost, m.RunID, m.Hostname)
	}
	if m.PID <= 0 {
		return nil, &NotRunningError{m.RunID, "metadata.json records no process"}
	}
	p, err := sys.OpenProcess(m.PID)
	if errors.Is(err, syscall.ESRCH) {
		return nil, &NotRunningError{m.RunID, fmt.Sprintf("its process %d is gone", m.PID)}
	}
	if err != nil {
		return nil, fmt.Errorf("open process %d: %w", m.PID, err)
	}
	// Checked after the handle is open: the pid cannot change hands now.
	alive, err := Alive(m)
	if err != nil || !alive {
		p.Close()
		if err != nil {
			return nil, err
		}
		return nil, &NotRunningError{m.RunID, fmt.Sprintf("its process %d is gone (the pid now belongs to another process, or none)", m.PID)}
	}
	return &RunProcess{p: p, PID: m.PID}, nil
}

// Signal sends sig to the process.
func (p *RunProcess) Signal(sig syscall.Signal) error {
	if err := p.p.Signal(sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process %d: %w", p.PID, err)
	}
	return nil
}

// Wait waits up to d for the process to end and reports whether it did.
func (p *RunProcess) Wait(d time.Duration) (bool, error) {
	ended, err := p.p.Wait(d)
	if err != nil {
		return false, fmt.Errorf("wait for process %d: %w", p.PID, err)
	}
	return ended, nil
}

// Close releases the handle.
func (p *RunProcess) Close() error { return p.p.Close() }

// ErrStopTimeout is Interrupt's error for a run still running after its
// timeout (without force).
var ErrStopTimeout = errors.New("run still running")

// Interrupt stops the RUNNING run m (its directory runDir) the way Ctrl-C
// does: SIGINT to its process, then up to timeout for it to end (it
// journals INTERRUPTED and exits). With force, a process still there is
// killed (SIGKILL; its tools die with it) and the run marked INTERRUPTED,
// as the janitor would. It returns the last signal sent ("SIGINT" or
// "SIGKILL"); a run that is not running is a *NotRunningError.
func Interrupt(m *Metadata, runDir string, timeout time.Duration, force bool) (string, error) {
	p, err := OpenProcess(m)
	if err != nil {
		return "", err
	}
	defer p.Close()
	if err := p.Signal(syscall.SIGINT); err != nil {
		return "SIGINT", err
	}
	ended, err := p.Wait(timeout)
	if err != nil {
		return "SIGINT", err
	}
	if ended {
		return "SIGINT", nil
	}
	if !force {
		return "SIGINT", fmt.Errorf("%w: it did not stop within %s of SIGINT", ErrStopTimeout, timeout)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return "SIGKILL", err
	}
	if _, err := p.Wait(10 * time.Second); err != nil {
		return "SIGKILL", err
	}
	return "SIGKILL", markInterrupted(runDir)
}

// markInterrupted records a killed run as INTERRUPTED, as continue's
// janitor would: the lock its process held is free now.
func markInterrupted(runDir string) error {
	unlock, err := Acquire(runDir)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := ReadMetadata(runDir)
	if err != nil {
		return err
	}
	if m.Status != Running {
		return nil
	}
	m.Status = Interrupted
	m.UpdatedAt = time.Now().UTC()
	return WriteMetadata(runDir, m)
}
