//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

// Support is what the running kernel offers for sandboxing: nothing, on
// this system.
type Support struct {
	ABI            int
	FS, Net, Netns bool
	NetBy          string
	Err            error
}

// Probe says this system offers no sandbox.
func Probe() Support {
	return Support{Err: fmt.Errorf("%w on %s", ErrUnsupported, runtime.GOOS)}
}

// Supported says this system cannot enforce any Rules.
func Supported(r Rules) error { return Settle(&r) }

// Settle says this system cannot enforce any Rules.
func Settle(r *Rules) error {
	_, err := restrictThread(*r)
	return err
}

// startInNetns is never reached here: restrictThread refuses first.
func startInNetns(Rules, string, []string, []string) error { return ErrUnsupported }

// restrictThread refuses: the sandbox is built on Linux's Landlock, and a
// command must never run unconfined when a sandbox was asked for.
func restrictThread(Rules) (bool, error) {
	return false, fmt.Errorf("%w: the sandbox needs Linux (Landlock) and this is %s; run with --sandbox danger-full-access to run tools unconfined", ErrUnsupported, runtime.GOOS)
}
