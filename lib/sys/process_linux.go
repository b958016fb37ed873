package sys

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a handle on one process that stays bound to it: once opened
// (and checked by the caller, for instance against a recorded Start), a
// signal sent through it never reaches another process that got the pid
// later. Linux: a pidfd.
type Process struct {
	fd  int
	PID int
}

// OpenProcess opens a handle on process pid; an error that errors.Is
// syscall.ESRCH when there is none. Check the process's identity (Stat)
// after opening: from then on the handle names that process.
func OpenProcess(pid int) (*Process, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, err
	}
	return &Process{fd: fd, PID: pid}, nil
}

// Signal sends sig to the process; one that has ended gives an error
// that errors.Is syscall.ESRCH. Linux: pidfd_send_signal, which reaches
// the process the pidfd was opened on or no process at all.
func (p *Process) Signal(sig syscall.Signal) error {
	return unix.PidfdSendSignal(p.fd, sig, nil, 0)
}

// Wait waits up to d for the process to end and reports whether it did.
// Linux: poll(2) on the pidfd.
func (p *Process) Wait(d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	for {
		left := max(time.Until(deadline), 0)
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
		if left == 0 {
			return false, nil
		}
	}
}

// Close releases the handle.
func (p *Process) Close() error { return unix.Close(p.fd) }
