package execute

// The guard.
//
// Pdeathsig alone cannot keep a command's grandchildren from outliving a
// killed engine: it kills only the direct child, and it fires when the
// parent *thread* exits, which a Go runtime may do on its own. So every
// command runs under a guard: this same executable (/proc/self/exe)
// re-executed with the hidden argument guardArg and DELTA_EXEC_GUARD=1. The
// package's init function notices that mode and turns the process into the
// guard before main runs, so no main (and no TestMain) has to do anything:
// importing this package is enough.
//
// The guard
//   - makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so processes
//     orphaned by the command are re-parented to it instead of to init;
//   - starts the command in a new process group;
//   - reads a control pipe from Run: 'T' sends SIGTERM to the command's
//     group and to its re-parented descendants, 'K' sends SIGKILL to all of
//     them, and end-of-file — which the kernel delivers when the calling
//     process dies, even by SIGKILL — also kills them all;
//   - forwards SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to itself;
//   - when the command exits, kills whatever it left behind in its session,
//     reports the exit status on a status pipe and exits.
//
// A process that called setsid(2) has detached on purpose (a daemon, such as
// a delta-sessions holder) and is never killed.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	guardArg = "__delta_exec_guard__"
	guardEnv = "DELTA_EXEC_GUARD"
	// Inherited descriptors: the control pipe and the status pipe.
	ctlFD    = 3
	statusFD = 4
)

func init() {
	if len(os.Args) >= 4 && os.Args[1] == guardArg && os.Getenv(guardEnv) == "1" {
		// The process is a guard, not a Delta command: it must never run
		// the program's main. This is the one exit outside a main.
		os.Exit(guardMain(os.Args[2], os.Args[3:]))
	}
}

// withoutGuardEnv returns env without the guard marker.
func withoutGuardEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, guardEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// guard is the state of a running guard process.
type guard struct {
	self, sid int // our pid and session
	pgid      int // the command's process group (= its pid)
	groupGone bool
	mainDone  bool // the command has been reaped; status holds its status
	status    guardStatus
}

func guardMain(path string, argv []string) int {
	syscall.CloseOnExec(ctlFD)
	syscall.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "status")
	report := func(st guardStatus) int {
		json.NewEncoder(status).Encode(st)
		status.Close()
		if st.Signal != 0 {
			return 128 + st.Signal
		}
		return st.Code
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return report(guardStatus{Code: 126, Error: fmt.Sprintf("guard: set child subreaper: %v", err)})
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	ctl := make(chan byte, 4)
	go readControl(os.NewFile(ctlFD, "control"), ctl)

	sid, _ := unix.Getsid(0)
	g := &guard{self: os.Getpid(), sid: sid}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   withoutGuardEnv(os.Environ()),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return report(guardStatus{Code: 126, Error: fmt.Sprintf("start %s: %v", path, err)})
	}
	g.pgid = pid
	return report(g.supervise(sigs, ctl))
}

// readControl turns the control pipe into events; EOF or an error (our
// parent is gone) reads as 'K'.
func readControl(f *os.File, ctl chan<- byte) {
	buf := make([]byte, 1)
	for {
		if n, err := f.Read(buf); n == 1 {
			ctl <- buf[0]
		} else if err != nil {
			ctl <- 'K'
			return
		}
	}
}

// supervise waits for the command, obeying the control pipe and forwarding
// signals, then cleans up and returns the command's status.
func (g *guard) supervise(sigs <-chan os.Signal, ctl <-chan byte) guardStatus {
	for {
		g.reap()
		if g.mainDone {
			g.killAll()
			return g.status
		}
		select {
		case sig := <-sigs:
			if sig != syscall.SIGCHLD {
				g.signalAll(sig.(syscall.Signal))
			}
		case c := <-ctl:
			switch c {
			case 'T':
				g.signalAll(syscall.SIGTERM)
			case 'K':
				g.killAll()
			}
		}
	}
}

// reap collects every exited child, recording the command's status when
// the command itself is among them.
func (g *guard) reap() {
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || p <= 0 {
			return
		}
		if p == g.pgid {
			g.mainDone = true
			if ws.Signaled() {
				g.status.Signal = int(ws.Signal())
			} else {
				g.status.Code = ws.ExitStatus()
			}
		}
	}
}

// signalAll sends sig to the command's process group and to every process
// of our session re-parented to us, each process once (some programs take
// a second SIGTERM or SIGINT as "quit now").
func (g *guard) signalAll(sig syscall.Signal) {
	if !g.groupGone {
		syscall.Kill(-g.pgid, sig)
	}
	for _, p := range g.orphans() {
		if g.groupGone || p.pgrp != g.pgid {
			syscall.Kill(p.pid, sig)
		}
	}
}

// killAll SIGKILLs the command's group and all its non-detached
// descendants, reaping as it goes, until none is left. Killing a process
// re-parents its children to us, so repeating converges.
func (g *guard) killAll() {
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.signalAll(syscall.SIGKILL)
		g.reap()
		// Once the group is empty its id may be reused: never signal it
		// again.
		g.groupGone = g.groupGone || syscall.Kill(-g.pgid, 0) == syscall.ESRCH
		if g.groupGone && len(g.orphans()) == 0 {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "delta-exec-guard: processes of group %d would not die\n", g.pgid)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// orphans lists our children other than zombies (the command included) that share our session:
// processes the command left behind. Detached ones (setsid) differ in
// session and are spared.
func (g *guard) orphans() []procStat {
	var out []procStat
	for _, p := range listProcs() {
		if p.ppid == g.self && p.sid == g.sid && p.state != 'Z' {
			out = append(out, p)
		}
	}
	return out
}
