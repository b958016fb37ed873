package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrRunBusy means another process holds the run (see Acquire).
var ErrRunBusy = errors.New("run is held by another process")

// LockFile is the lock's name inside a run directory.
const LockFile = ".lock"

// Acquire takes an exclusive, non-blocking flock on runDir/.lock so that two
// `continue`s of one run cannot both proceed; the second gets ErrRunBusy.
// Call release when done. The kernel drops the lock when the holder dies,
// even by SIGKILL, so a crash never leaves a run locked, and commands the
// holder starts do not inherit it (the descriptor is close-on-exec).
func Acquire(runDir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(runDir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock run %s: %w", runDir, ErrRunBusy)
		}
		return nil, fmt.Errorf("lock run: %w", err)
	}
	return func() { f.Close() }, nil
}
