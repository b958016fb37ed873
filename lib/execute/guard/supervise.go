package guard

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// guard is the state of a running guard process.
type guard struct {
	self, sid int // our pid and session
	pgid      int // the command's process group (= its pid)
	groupGone bool
	mainDone  bool // the command has been reaped; status holds its status
	// childless: the last reap found no child at all, running or zombie.
	// Every live descendant of the command has a live ancestor chain
	// ending in a child of ours (orphans are re-parented to us, the
	// subreaper), so a childless guard has no descendants left and need
	// not scan /proc for them.
	childless bool
	status    Status
}

// supervise waits for the command, obeying the control pipe and forwarding
// signals, then cleans up and returns the command's status.
func (g *guard) supervise(sigs <-chan os.Signal, ctl <-chan byte) Status {
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
			case Term:
				g.signalAll(syscall.SIGTERM)
			case Kill:
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
		g.childless = err == syscall.ECHILD
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
			fmt.Fprintf(os.Stderr, "%s: processes of group %d would not die\n", Name, g.pgid)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// orphans lists our children other than zombies (the command included)
// that share our session: processes the command left behind. Detached ones
// (setsid) differ in session and are spared.
func (g *guard) orphans() []procStat {
	if g.childless {
		return nil
	}
	var out []procStat
	for _, p := range listProcs() {
		if p.ppid == g.self && p.sid == g.sid && p.state != 'Z' {
			out = append(out, p)
		}
	}
	return out
}
