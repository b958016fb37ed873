// Package sys is the one home of every operating-system-specific call
// Delta makes: renaming without replacing and exchanging two files in one
// atomic step, telling a process from a later one that got its pid,
// signalling and waiting for the process a run recorded, keeping a
// command's whole process tree under control, and passing descriptors
// between processes. Everything above it is portable Go.
//
// Each function has a Linux file (*_linux.go) and a darwin file
// (*_darwin.go) side by side; the parsers of what the kernel reports
// (/proc/PID/stat, darwin's kinfo_proc) have no build tags, so both are
// tested on any machine. Linux gives the strongest guarantees (pidfds, a
// child subreaper); where darwin keeps a guarantee by other means, or
// cannot keep it, the function's doc comment says so, and so do the man
// pages of the commands that depend on it.
//
// The package imports only the standard library and golang.org/x/sys, so
// the small delta-exec-guard binary can use it.
package sys

import "errors"

// ProcInfo is what Delta needs to know about one process.
type ProcInfo struct {
	PID, PPID int
	PGID, SID int // its process group and session
	// Start identifies the process across pid reuse: two processes with
	// one pid never have the same Start on one host. On Linux it is the
	// start time in clock ticks since boot (/proc/PID/stat field 22); on
	// darwin the start time in microseconds since the Unix epoch
	// (kinfo_proc p_starttime). Compare it only with a Start of the same
	// host.
	Start uint64
	// Zombie is true for a process that has exited but is not reaped yet
	// (or, on Linux, is being torn down).
	Zombie bool
}

// ErrUnsupported wraps the error of a call the file system or kernel does
// not offer (renaming without replacing on an old file system, say);
// callers fall back to a weaker way where one is safe.
var ErrUnsupported = errors.ErrUnsupported

// unsupported is a kernel error that means "not offered here": errors.Is
// finds both ErrUnsupported and the original errno in it.
type unsupported struct{ errno error }

func (e unsupported) Error() string { return e.errno.Error() + " (not supported here)" }
func (e unsupported) Unwrap() []error {
	return []error{ErrUnsupported, e.errno}
}
