package runs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ProcessInfo identifies a process across pid reuse: the pid plus its start
// time in clock ticks since boot, on a given host.
type ProcessInfo struct {
	PID           int
	Hostname      string
	StartTicks    uint64 // /proc/PID/stat field 22
	StartTimeUnix int64  // process start, Unix milliseconds
	Name          string // /proc/PID/comm, e.g. "delta-run"
}

// clockTicks is USER_HZ, 100 on every Linux platform Go supports.
const clockTicks = 100

// Self describes the current process, for the engine to record in
// metadata.json.
func Self() ProcessInfo {
	p := ProcessInfo{PID: os.Getpid(), StartTimeUnix: time.Now().UnixMilli()}
	p.Hostname, _ = os.Hostname()
	if st, err := readStat(p.PID); err == nil {
		p.StartTicks = st.startTicks
		if boot, err := bootTime(); err == nil {
			p.StartTimeUnix = boot.Add(time.Duration(st.startTicks) * time.Second / clockTicks).UnixMilli()
		}
	}
	p.Name = processName(p.PID)
	return p
}

// Alive reports whether the process recorded in m still runs. A pid that
// exists is the run's process only if its start ticks match (when they
// were recorded) or, for metadata without ticks, its name matches. Zombies
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
	st, err := readStat(m.PID)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // exited meanwhile
			return false, nil
		}
		return false, err
	}
	if st.state == 'Z' || st.state == 'X' {
		return false, nil
	}
	if m.ProcessStartTicks != 0 {
		return st.startTicks == m.ProcessStartTicks, nil
	}
	if m.ProcessName != "" {
		return processName(m.PID) == m.ProcessName, nil
	}
	return true, nil
}

type procStat struct {
	state      byte
	startTicks uint64
}

// readStat parses /proc/PID/stat. Fields are counted after the last ')'
// because the command name may contain spaces and parentheses.
func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(data)
}

func parseStat(data []byte) (procStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("parse /proc stat %q: no command name", data)
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state), so field 22 (starttime) is f[19].
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, fmt.Errorf("parse /proc stat %q: too few fields", data)
	}
	ticks, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("parse /proc stat start time: %w", err)
	}
	return procStat{state: f[0][0], startTicks: ticks}, nil
}

func processName(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// bootTime reads btime from /proc/stat.
func bootTime() (time.Time, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, err
			}
			return time.Unix(s, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
}
