package sys

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a handle on one process. Darwin has no pidfd; the handle is
// a kqueue watching the process for its exit (EVFILT_PROC, NOTE_EXIT),
// registered when it is opened: the kqueue is bound to that process, so
// waiting through it can never be confused by a later process with the
// same pid. A signal is sent with kill(2) only while the kqueue has not
// seen the exit; the one race left is the process exiting, being reaped
// and its pid reused by another process between that look and the
// kill(2), in microseconds (darwin hands out pids in increasing order up
// to 99999 before wrapping).
type Process struct {
	kq    int
	ended bool
	PID   int
}

// OpenProcess opens a handle on process pid; an error that errors.Is
// syscall.ESRCH when there is none. Check the process's identity (Stat)
// after opening: from then on the handle names that process.
func OpenProcess(pid int) (*Process, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(kq)
	if _, err := unix.Kevent(kq, []unix.Kevent_t{exitEvent(pid)}, nil, nil); err != nil {
		unix.Close(kq)
		return nil, err
	}
	return &Process{kq: kq, PID: pid}, nil
}

// exitEvent is the kevent registering interest in pid's exit.
func exitEvent(pid int) unix.Kevent_t {
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	return ev
}

// Signal sends sig to the process; one that has ended gives an error
// that errors.Is syscall.ESRCH. Darwin: kill(2), unless the kqueue has
// seen the exit (see Process for the race left).
func (p *Process) Signal(sig syscall.Signal) error {
	ended, err := p.Wait(0)
	if err != nil {
		return err
	}
	if ended {
		return syscall.ESRCH
	}
	return unix.Kill(p.PID, sig)
}

// Wait waits up to d for the process to end and reports whether it did.
// Darwin: kevent(2) on the handle's kqueue.
func (p *Process) Wait(d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	for !p.ended {
		left := max(time.Until(deadline), 0)
		ts := unix.NsecToTimespec(left.Nanoseconds())
		events := make([]unix.Kevent_t, 1)
		n, err := unix.Kevent(p.kq, nil, events, &ts)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			p.ended = true
		} else if left == 0 {
			return false, nil
		}
	}
	return true, nil
}

// Close releases the handle.
func (p *Process) Close() error { return unix.Close(p.kq) }
