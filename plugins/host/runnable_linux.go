package host

import "os"

// runnable on Linux is the open descriptor itself: the child executes
// /proc/self/fd/3, the very inode that was hashed, with nothing copied.
type runnable struct{}

func newRunnable(*os.File) (runnable, error) { return runnable{}, nil }

func (runnable) Write(p []byte) (int, error) { return len(p), nil }
func (runnable) path() (string, error)       { return "/proc/self/fd/3", nil }
func (runnable) discard()                    {}
