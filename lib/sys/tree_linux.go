package sys

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// HasSubreaper is true where BecomeSubreaper makes the caller the parent
// of every orphan among its descendants (Linux).
const HasSubreaper = true

// BecomeSubreaper makes the calling process a child subreaper: processes
// orphaned among its descendants are re-parented to it instead of to
// init, so it can find, kill and reap a command's whole tree, even the
// parts that double-forked away from their process group. Linux:
// prctl(PR_SET_CHILD_SUBREAPER).
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// SetParentDeathSignal asks the kernel to send sig to the child started
// with attr when its parent dies (Linux: Pdeathsig).
func SetParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) { attr.Pdeathsig = sig }
