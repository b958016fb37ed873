package runs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/sys"
)

// ProcessInfo identifies a process across pid reuse: the pid plus its
// start (sys.ProcInfo.Start), on a given host.
type ProcessInfo struct {
	PID           int
	Hostname      string
	StartTicks    uint64 // sys.ProcInfo.Start: Linux clock ticks since boot, darwin µs since the epoch
	StartTimeUnix int64  // process start, Unix milliseconds
	Name          string // the command name, e.g. "delta-run"
}

// Self describes the current process, for the engine to record in
// metadata.json.
func Self() ProcessInfo {
	p := ProcessInfo{PID: os.Getpid(), StartTimeUnix: time.Now().UnixMilli()}
	p.Hostname, _ = os.Hostname()
	if st, err := sys.Stat(p.PID); err == nil {
		p.StartTicks = st.Start
		if start, err := sys.StartTime(st); err == nil {
			p.StartTimeUnix = start.UnixMilli()
		}
	}
	p.Name = sys.Name(p.PID)
	return p
}

// Alive reports whether the process recorded in m still runs. A pid that
// exists is the run's process only if its start matches (when it was
// recorded) or, for metadata without one, its name matches. Zombies
// count as dead.
func Alive(m *Metadata) (bool, error) {
	if m.PID <= 0 {
		return false, nil
	}
	err := syscall.Kill(m.PID, 0)
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false, fmt.Errorf("check process %d: %w", m.PID, err)
	}
	st, err := sys.Stat(m.PID)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // exited meanwhile
			return false, nil
		}
		return false, err
	}
	if st.Zombie {
		return false, nil
	}
	if m.ProcessStartTicks != 0 {
		return st.Start == m.ProcessStartTicks, nil
	}
	if m.ProcessName != "" {
		return sys.Name(m.PID) == m.ProcessName, nil
	}
	return true, nil
}

// Stale is the janitor's liveness check, read-only: a RUNNING run of this
// host whose process no longer exists. Runs of other hosts are never
// judged from here.
func Stale(m *Metadata) bool {
	host, _ := os.Hostname()
	if m.Status != Running || m.Hostname != host {
		return false
	}
	alive, err := Alive(m)
	return err == nil && !alive
}

// StillRunning reports whether the run in runDir is RUNNING and its
// process still drives it: what a follower (delta log -f, delta otel
// export --follow) polls to know when the journal is complete.
func StillRunning(runDir string) bool {
	m, err := ReadMetadata(runDir)
	return err == nil && m.Status == Running && !Stale(m)
}
