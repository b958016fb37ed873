package sys

import "syscall"

// HasSubreaper is true where BecomeSubreaper makes the caller the parent
// of every orphan among its descendants. Darwin has no subreaper: an
// orphan goes to launchd.
const HasSubreaper = false

// BecomeSubreaper does nothing on darwin, which has no child subreaper.
// A supervisor there finds a command's processes by their session
// (SessionProcs) instead of among its children: every process that stays
// in the session is found and killed, even one that double-forked away
// from its process group; what it cannot do is reap the orphans (launchd
// does) or rule out that an orphan's pid is reused between the scan and
// the signal.
func BecomeSubreaper() error { return nil }

// SetParentDeathSignal does nothing on darwin, which has no parent-death
// signal: a child there outlives a parent killed with SIGKILL unless
// something else (the end of a pipe or socket it reads) tells it.
func SetParentDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {}
