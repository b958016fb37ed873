package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// netABI is the first Landlock ABI that filters TCP connect(2).
const netABI = 4

// handledFS is every file access Landlock knows at the ABI this package
// targets, except device ioctls: a terminal (delta-pty's ptys, an
// editor's) needs them, and they write no file.
var handledFS = landlock.V7.HandledAccessFS &^ ll.AccessFSIoctlDev

// Support is what the running kernel offers for sandboxing.
type Support struct {
	// ABI is the Landlock ABI version, 0 when Landlock is missing or
	// disabled (Err says why).
	ABI int
	// FS: write restrictions; Net: TCP connect restrictions.
	FS, Net bool
	// Netns: a network namespace can be made (as root, or in a user
	// namespace).
	Netns bool
	// NetBy is what confines the network of a sandbox without it:
	// "Landlock", "network namespace", or "" for nothing (such a sandbox
	// cannot start). See LandlockNetEnv.
	NetBy string
	Err   error
}

// Probe asks the kernel what it offers.
func Probe() Support {
	var s Support
	s.ABI, s.Err = ll.LandlockGetABIVersion()
	if s.Err != nil {
		s.ABI = 0
	}
	s.FS, s.Net = s.ABI >= 1, s.ABI >= netABI
	s.Netns = netnsAvailable()
	switch {
	case !s.FS:
	case tcpByLandlock(s.ABI):
		s.NetBy = "Landlock"
	case s.Netns:
		s.NetBy = "network namespace"
	}
	return s
}

// Supported reports, without restricting anything, whether the kernel
// can enforce r: an error wrapping ErrUnsupported says what is missing.
func Supported(r Rules) error { return Settle(&r) }

// landlockABI is the kernel's Landlock ABI, or why there is none.
func landlockABI() (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return 0, fmt.Errorf("%w: this kernel has no Landlock (%v); enable it (CONFIG_SECURITY_LANDLOCK, lsm=landlock) or run without a sandbox: --sandbox danger-full-access", ErrUnsupported, errOr(err))
	}
	return abi, nil
}

// abiFor is the kernel's Landlock ABI, or why it cannot enforce r as
// Settle decided.
func abiFor(r Rules) (int, error) {
	abi, err := landlockABI()
	if err != nil {
		return 0, err
	}
	if !r.Network && !r.Netns && !tcpByLandlock(abi) {
		if err := Settle(&r); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%w: these sandbox rules were made for a kernel whose Landlock filters TCP; this one's (ABI %d) does not", ErrUnsupported, abi)
	}
	return abi, nil
}

// restrictThread restricts the calling OS thread, and the program it
// execs next, to r. The caller holds runtime.LockOSThread and execs from
// this thread: Landlock (like no_new_privs) applies per thread, and
// execve keeps only the calling thread. Restricting every thread of the
// Go runtime instead (psx) costs tens of milliseconds on a loaded machine,
// for a process that is about to exec anyway.
//
// With r.Netns the thread first enters a new network namespace; userns
// reports that it could not (not root) and restricted nothing: the
// command must be started as a child in a user namespace of its own
// (startInNetns).
func restrictThread(r Rules) (userns bool, _ error) {
	if _, err := abiFor(r); err != nil {
		return false, err
	}
	if r.Netns {
		switch err := enterNetns(); {
		case errors.Is(err, errUserns):
			return true, nil
		case err != nil:
			return false, err
		}
	}
	cfg := landlock.Config{HandledAccessFS: handledFS}
	rules := []landlock.Rule{landlock.RODirs("/")}
	for _, p := range r.Write {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue // nothing there to write to; creating it needs its parent
		case fi.IsDir():
			rules = append(rules, landlock.RWDirs(p).WithRefer())
		default:
			rules = append(rules, landlock.RWFiles(p))
		}
	}
	if !r.Network && !r.Netns {
		cfg.HandledAccessNet = ll.AccessNetConnectTCP
		for _, port := range r.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return false, fmt.Errorf("apply the sandbox (Landlock): %w", err)
	}
	if fd < 0 {
		return false, fmt.Errorf("%w: Landlock enforces nothing here", ErrUnsupported)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return false, fmt.Errorf("apply the sandbox: set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return false, fmt.Errorf("apply the sandbox (Landlock): %w", err)
	}
	return false, nil
}

func errOr(err error) error {
	if err == nil {
		return errors.New("ABI 0")
	}
	if errors.Is(err, unix.EOPNOTSUPP) {
		return errors.New("disabled at boot")
	}
	return err
}
