package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/sys"
)

// The lock that serialises execs dies with its client, but a shell
// command does not: a client killed with SIGKILL leaves its command
// running in its process group. So each shell exec records that group in
// the session's lock file while it runs, and the next exec, holding the
// lock, kills what is left of it before it starts: execs never interleave.
// The record is written in place in the file the exec holds open anyway
// (one small write to record, one to clear): creating and renaming a file
// per exec costs more than the rest of the exec's bookkeeping.

// recordSize is the fixed size of the record at the start of the lock
// file; a cleared record is all spaces.
const recordSize = 64

// running identifies an exec's process group. The leader's start
// (sys.ProcInfo.Start) tells our group from a new one that got the same
// id after ours ended.
type running struct {
	PGID  int    `json:"pgid"`
	Start uint64 `json:"start_time"`
}

// recordRunning notes in the lock file that process group pgid runs an
// exec of its session.
func recordRunning(lock *os.File, pgid int) {
	data, _ := json.Marshal(running{PGID: pgid, Start: startTime(pgid)})
	writeRecord(lock, data)
}

// clearRunning blanks the record once the exec has finished.
func clearRunning(lock *os.File) { writeRecord(lock, nil) }

// writeRecord writes data, padded with spaces to recordSize, at the start
// of the lock file in one write.
func writeRecord(lock *os.File, data []byte) {
	rec := bytes.Repeat([]byte{' '}, recordSize)
	copy(rec, data)
	_, _ = lock.WriteAt(rec, 0)
}

// killLeftover kills the process group of an earlier exec whose client
// died, if any of it still runs, and says so on notes.
func killLeftover(lock *os.File, notes io.Writer) {
	rec := make([]byte, recordSize)
	n, _ := lock.ReadAt(rec, 0)
	rec = bytes.TrimSpace(rec[:n])
	if len(rec) == 0 {
		return
	}
	defer clearRunning(lock)
	var r running
	if json.Unmarshal(rec, &r) != nil || r.PGID <= 1 {
		return
	}
	if syscall.Kill(-r.PGID, 0) != nil {
		return // the whole group is gone
	}
	// A live leader with another start time heads a new group that
	// reused the id; with no leader, the group can only be ours (Linux
	// gives no process the id of a process group still in use).
	if st := startTime(r.PGID); st != 0 && st != r.Start {
		return
	}
	// SIGKILL, not SIGTERM: a shell's EXIT trap would save its state
	// over the session's, and nobody waits for its result.
	_ = syscall.Kill(-r.PGID, syscall.SIGKILL)
	// Wait (briefly) for the leader to die; it stays a zombie when its
	// parent, the dead client, left it to an init that does not reap.
	for i := 0; i < 100 && living(r.PGID); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(notes, "delta-sessions: warning: the previous exec's client died while its command ran; that command (process group %d) was still running and has been killed\n", r.PGID)
}

// living reports whether process pid exists and is not a zombie.
func living(pid int) bool {
	p, err := sys.Stat(pid)
	return err == nil && !p.Zombie
}

// startTime returns the start of process pid (sys.ProcInfo.Start), or 0
// when it does not exist (or the OS cannot tell).
func startTime(pid int) uint64 {
	p, err := sys.Stat(pid)
	if err != nil {
		return 0
	}
	return p.Start
}
