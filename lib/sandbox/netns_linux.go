package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpByLandlock reports whether Landlock filters TCP connects here: a
// kernel with ABI 4, unless LandlockNetEnv turns it off.
func tcpByLandlock(abi int) bool { return abi >= netABI && os.Getenv(LandlockNetEnv) != "off" }

// Settle decides how the kernel enforces r and reports, wrapping
// ErrUnsupported, what it cannot: the network is confined by Landlock's
// TCP rules where the kernel has them, else by a new network namespace
// (r.Netns), which has no network at all, so a list of allowed ports
// cannot be honoured there.
func Settle(r *Rules) error {
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	r.Netns = false
	if r.Network || tcpByLandlock(abi) {
		return nil
	}
	why := fmt.Sprintf("this kernel's Landlock (ABI %d) cannot filter TCP (ABI %d can, Linux 6.7)", abi, netABI)
	if abi >= netABI {
		why = "Landlock's TCP rules are turned off (" + LandlockNetEnv + "=off)"
	}
	switch {
	case len(r.Ports) > 0:
		return fmt.Errorf("%w: %s, and the network namespace that confines the network instead allows no port at all: remove sandbox network's host:port list (no network), allow all of it (sandbox network: true), or run with --sandbox danger-full-access", ErrUnsupported, why)
	case !netnsAvailable():
		return fmt.Errorf("%w: %s, and network namespaces cannot be made here (user namespaces are off); allow the network (sandbox network: true) or run with --sandbox danger-full-access", ErrUnsupported, why)
	}
	r.Netns = true
	return nil
}

// netnsAvailable reports whether this process can make a network
// namespace: as root directly, otherwise inside a new user namespace
// (max_user_namespaces, and Debian's unprivileged_userns_clone when
// present).
func netnsAvailable() bool {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return false
	}
	if os.Geteuid() == 0 {
		return true
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err != nil || string(b) == "0\n" {
		return false
	}
	b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone")
	return err != nil || string(b) != "0\n"
}

// enterNetns moves the calling (locked) thread, and so the program it
// execs, into a new network namespace: only a loopback device, down, so
// every connect fails. It needs CAP_SYS_ADMIN; without it (errUserns) the
// command runs in a user namespace of its own too (startInNetns), which a
// process with several threads, as every Go program, cannot enter itself.
func enterNetns() error {
	err := unix.Unshare(unix.CLONE_NEWNET)
	if errors.Is(err, unix.EPERM) {
		return errUserns
	}
	if err != nil {
		return fmt.Errorf("apply the sandbox: new network namespace: %w", err)
	}
	return nil
}

var errUserns = errors.New("a user namespace is needed")

// startInNetns runs the program at path under r as a child in a new user
// and network namespace, its user and group mapped to this process's, and
// waits for it. The child is this executable again (ExecArg), which
// confines itself with Landlock and execs the program: this process
// writes the child's uid_map, which a process confined to the workspace
// could not. Inside, the network is cut by the namespace, so the child's
// rules leave TCP to it. Signals asking this process to stop are passed
// on; the child gets the terminal's itself (same process group). It
// returns the child's status as ExitCode; killed by a signal, this
// process kills itself with it.
func startInNetns(r Rules, path string, argv, env []string) error {
	inner := r
	inner.Netns, inner.Network, inner.Ports = false, true, nil
	full, err := Argv("/proc/self/exe", inner, path, argv)
	if err != nil {
		return err
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: full, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}}}
	stops := make(chan os.Signal, 4)
	signal.Notify(stops, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("apply the sandbox: start %s in a new user and network namespace: %w", path, err)
	}
	go func() {
		for s := range stops {
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				cmd.Process.Signal(s)
			} // SIGINT and SIGQUIT come from the terminal: the child has them
		}
	}()
	err = cmd.Wait()
	signal.Stop(stops)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signal.Reset(ws.Signal())
			syscall.Kill(os.Getpid(), ws.Signal())
			return ExitCode(128 + int(ws.Signal()))
		}
		return ExitCode(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("apply the sandbox: %w", err)
	}
	return ExitCode(0)
}
