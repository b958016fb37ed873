// Package guard is the small supervisor process that stands between Delta
// and every command it runs (see lib/execute, which starts it).
//
// Pdeathsig alone cannot keep a command's grandchildren from outliving a
// killed engine: it kills only the direct child, and it fires when the
// parent *thread* exits, which a Go runtime may do on its own. So every
// command runs under a guard process, which
//   - makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so processes
//     orphaned by the command are re-parented to it instead of to init;
//   - starts the command in a new process group;
//   - reads a control pipe from its caller: Term sends SIGTERM to the
//     command's group and to its re-parented descendants, Kill sends SIGKILL
//     to all of them, and end-of-file — which the kernel delivers when the
//     caller dies, even by SIGKILL — also kills them all;
//   - forwards SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to itself;
//   - when the command exits, kills whatever it left behind in its session,
//     reports the exit status on a status pipe and exits.
//
// A process that called setsid(2) has detached on purpose (a daemon, such as
// a delta-sessions holder) and is never killed.
//
// The package is a leaf on purpose: it imports only the standard library and
// golang.org/x/sys, so the dedicated delta-exec-guard binary built from it
// is small and starts as fast as any small Go program, where re-executing a
// Delta binary full of SDKs costs some ten milliseconds more.
package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The protocol between a caller (lib/execute) and a guard. A guard process
// is started as
//
//	ARGV0 Arg PATH COMMAND-ARGV...
//
// with Env=1 in its environment, the control pipe's read end as descriptor
// CtlFD and the status pipe's write end as StatusFD.
const (
	// Name is the dedicated guard binary, installed next to the other
	// delta binaries.
	Name = "delta-exec-guard"
	// Arg is the hidden first argument naming guard mode. It carries the
	// protocol version: bump it on any change to this protocol, so that a
	// stale delta-exec-guard refuses to run instead of misbehaving.
	Arg = "__delta_exec_guard_v1__"
	// ArgPrefix is what every version of Arg starts with.
	ArgPrefix = "__delta_exec_guard"
	// Env is set to "1" for a guard; the guard removes it from the
	// command's environment.
	Env = "DELTA_EXEC_GUARD"
	// CtlFD and StatusFD are the inherited descriptors of the control pipe
	// and the status pipe.
	CtlFD    = 3
	StatusFD = 4
	// Term and Kill are the control pipe's messages.
	Term = 'T'
	Kill = 'K'
)

// Status is what a guard writes, as one JSON object, on its status pipe
// before it exits: the command's exit code or the signal that killed it, or
// why it could not be started.
type Status struct {
	Code   int    `json:"code"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Invoked reports whether args (a process's os.Args) and the environment
// ask this process to be a guard.
func Invoked(args []string) bool {
	return len(args) >= 4 && args[1] == Arg && os.Getenv(Env) == "1"
}

// WithoutEnv returns env without the guard marker, so that the command (and
// any Delta binary it runs) never mistakes itself for a guard.
func WithoutEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, Env+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Main is the guard: args are the process's os.Args as described above.
// It returns the guard's exit code (the command's, 128+signal when a signal
// killed it); the caller reads the precise outcome from the status pipe.
func Main(args []string) int {
	path, argv := args[2], args[3:]
	syscall.CloseOnExec(CtlFD)
	syscall.CloseOnExec(StatusFD)
	status := os.NewFile(StatusFD, "status")
	report := func(st Status) int {
		json.NewEncoder(status).Encode(st)
		status.Close()
		if st.Signal != 0 {
			return 128 + st.Signal
		}
		return st.Code
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return report(Status{Code: 126, Error: fmt.Sprintf("guard: set child subreaper: %v", err)})
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	ctl := make(chan byte, 4)
	// Non-blocking, the control pipe is read through the runtime's poller
	// instead of tying up a thread of its own: a thread less to start.
	// The pipe's read end is ours alone, so the flag surprises no one.
	syscall.SetNonblock(CtlFD, true)
	go readControl(os.NewFile(CtlFD, "control"), ctl)

	sid, _ := unix.Getsid(0)
	g := &guard{self: os.Getpid(), sid: sid}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   WithoutEnv(os.Environ()),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return report(Status{Code: 126, Error: fmt.Sprintf("start %s: %v", path, err)})
	}
	g.pgid = pid
	return report(g.supervise(sigs, ctl))
}

// readControl turns the control pipe into events; EOF or an error (our
// caller is gone) reads as Kill.
func readControl(f *os.File, ctl chan<- byte) {
	buf := make([]byte, 1)
	for {
		if n, err := f.Read(buf); n == 1 {
			ctl <- buf[0]
		} else if err != nil {
			ctl <- Kill
			return
		}
	}
}
