package sys

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, 100 on every Linux platform Go supports.
const clockTicks = 100

// SelfExe names the running program's own binary for re-executing it, even
// when the file on disk was replaced or deleted since it started. Linux:
// /proc/self/exe.
func SelfExe() string { return "/proc/self/exe" }

// Stat describes process pid; an error that errors.Is fs.ErrNotExist when
// there is no such process. Linux: /proc/PID/stat.
func Stat(pid int) (ProcInfo, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ProcInfo{}, err
	}
	return parseProcStat(pid, data)
}

// Name is the process's command name (for a running Delta binary, its
// file name, cut to the kernel's limit), or "" when it cannot be read.
// Linux: /proc/PID/comm, at most 15 bytes.
func Name(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// StartTime converts p.Start to the wall-clock time the process started.
// Linux: boot time (btime in /proc/stat) plus the start ticks.
func StartTime(p ProcInfo) (time.Time, error) {
	boot, err := bootTime()
	if err != nil {
		return time.Time{}, err
	}
	return boot.Add(time.Duration(p.Start) * time.Second / clockTicks), nil
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

// AllProcs describes every process; processes that vanish while they are
// read are skipped. Linux: /proc/*/stat.
func AllProcs() []ProcInfo {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]ProcInfo, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, err := Stat(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// SelfChildren describes the children of the calling process. Linux: the
// children listed by /proc/self/task/*/children (a child belongs to the
// thread that forked it, or that it was re-parented to); without those
// files (a kernel built without them) all of /proc is scanned.
func SelfChildren() []ProcInfo {
	self := os.Getpid()
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []ProcInfo
	found := false
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		found = true
		for _, f := range bytes.Fields(data) {
			pid, err := strconv.Atoi(string(f))
			if err != nil {
				continue
			}
			if p, err := Stat(pid); err == nil && p.PPID == self {
				out = append(out, p) // else reaped meanwhile
			}
		}
	}
	if found {
		return out
	}
	for _, p := range AllProcs() {
		if p.PPID == self {
			out = append(out, p)
		}
	}
	return out
}
