//go:build !windows

// Package filelock takes the exclusive, waiting file locks that Delta's
// processes use to take turns on shared files: a workflow's channel and
// state, a command session's execs.
//
// A lock is a flock(2) on a file of its own. The kernel drops it when its
// holder dies, even by SIGKILL, so a crash never leaves anything locked,
// and commands the holder starts do not inherit it (the descriptor is
// close-on-exec). A new descriptor per call makes goroutines of one
// process exclude each other too. The wait is restarted when a signal
// interrupts it (EINTR): Go's runtime signals its own threads, and a
// signal handled elsewhere in the program must not be taken for a
// failure to lock.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock opens path (creating it with perm) and waits until it holds an
// exclusive lock on it. Closing the file releases the lock; until then
// the file may also be read and written, for a record of what its holder
// does.
func Lock(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
