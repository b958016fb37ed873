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
	// Netns: an unprivileged network namespace can be made.
	Netns bool
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
	return s
}

// netnsAvailable reports whether the kernel lets an unprivileged process
// make a network namespace (unshare -rn): user namespaces are allowed
// (max_user_namespaces, and Debian's unprivileged_userns_clone when
// present).
func netnsAvailable() bool {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return false
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err != nil || string(b) == "0\n" {
		return false
	}
	b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone")
	return err != nil || string(b) != "0\n"
}

// Supported reports, without restricting anything, whether the kernel
// can enforce r: an error wrapping ErrUnsupported says what is missing.
func Supported(r Rules) error {
	_, err := abiFor(r)
	return err
}

// abiFor is the kernel's Landlock ABI, or why it cannot enforce r.
func abiFor(r Rules) (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return 0, fmt.Errorf("%w: this kernel has no Landlock (%v); enable it (CONFIG_SECURITY_LANDLOCK, lsm=landlock) or run without a sandbox: --sandbox danger-full-access", ErrUnsupported, errOr(err))
	}
	if !r.Network && abi < netABI {
		return 0, fmt.Errorf("%w: this kernel's Landlock (ABI %d) cannot filter TCP (ABI %d can, Linux 6.7); allow the network (sandbox network: true) or run with --sandbox danger-full-access", ErrUnsupported, abi, netABI)
	}
	return abi, nil
}

// restrictThread restricts the calling OS thread, and the program it
// execs next, to r. The caller holds runtime.LockOSThread and execs from
// this thread: Landlock (like no_new_privs) applies per thread, and
// execve keeps only the calling thread. Restricting every thread of the
// Go runtime instead (psx) costs tens of milliseconds on a loaded machine,
// for a process that is about to exec anyway.
func restrictThread(r Rules) error {
	if _, err := abiFor(r); err != nil {
		return err
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
	if !r.Network {
		cfg.HandledAccessNet = ll.AccessNetConnectTCP
		for _, port := range r.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("apply the sandbox (Landlock): %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("%w: Landlock enforces nothing here", ErrUnsupported)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("apply the sandbox: set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("apply the sandbox (Landlock): %w", err)
	}
	return nil
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
