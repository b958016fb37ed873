package guard

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// signalSession sends sig to the processes of the command whose session is
// sid: its process group (the leader's) and every process of the session
// re-parented to us outside that group, each process once (some programs
// take a second SIGTERM or SIGINT as "quit now"). Descendants further down
// that left the group are reached when their parents die and they come to
// us (killSession repeats until the session is empty).
func (s *server) signalSession(sid int, sig syscall.Signal) {
	if _, running := s.byPid[sid]; running {
		// Until the leader is reaped its pid cannot be reused, so the
		// group id is still the command's.
		syscall.Kill(-sid, sig)
	}
	for _, p := range s.children(sid) {
		if p.pgrp != sid && p.state != 'Z' {
			syscall.Kill(p.pid, sig)
		}
	}
}

// killSession SIGKILLs what is left of session sid, reaping as it goes,
// until none of its processes is our child any more. Killing a process
// re-parents its children to us (before it turns zombie), so repeating
// converges; a zombie of the session seen means one more look.
func (s *server) killSession(sid int) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.reap()
		left := s.children(sid)
		if len(left) == 0 {
			return
		}
		live := false
		for _, p := range left {
			if p.state != 'Z' {
				syscall.Kill(p.pid, syscall.SIGKILL)
				live = true
			}
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "%s: processes of session %d would not die\n", Name, sid)
			return
		}
		if live {
			time.Sleep(time.Millisecond)
		}
	}
}

// children lists our children in session sid. Every live process of the
// session has an ancestor chain of session members ending in a child of
// ours (orphans are re-parented to us, the subreaper), so the session is
// empty when none of our children is in it.
func (s *server) children(sid int) []procStat {
	var out []procStat
	for _, p := range childStats(s.self) {
		if p.sid == sid {
			out = append(out, p)
		}
	}
	return out
}
