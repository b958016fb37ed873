package guard

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/sys"
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
		if p.PGID != sid && !p.Zombie {
			syscall.Kill(p.PID, sig)
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
			if !p.Zombie {
				syscall.Kill(p.PID, syscall.SIGKILL)
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

// children lists the processes of session sid the guard must deal with.
// With a subreaper (Linux) they are our children in the session: every
// live process of the session has an ancestor chain of session members
// ending in a child of ours (orphans are re-parented to us), so the
// session is empty when none of our children is in it. Without one
// (darwin), orphans go to launchd, so every process of the session is
// looked for (sys.SessionProcs, live ones only; our own zombie children
// among them are reaped by killSession's reap).
func (s *server) children(sid int) []sys.ProcInfo {
	var out []sys.ProcInfo
	if !sys.HasSubreaper {
		return sys.SessionProcs(sid)
	}
	for _, p := range sys.SelfChildren() {
		if p.SID == sid {
			out = append(out, p)
		}
	}
	return out
}
