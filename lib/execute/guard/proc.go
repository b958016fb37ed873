package guard

import (
	"bytes"
	"os"
	"strconv"
)

// procStat is the part of /proc/PID/stat the guard needs.
type procStat struct {
	pid, ppid, pgrp, sid int
	state                byte
}

// listProcs reads /proc/*/stat. Processes that vanish while we read are
// skipped.
func listProcs() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		if st, ok := parseStat(pid, data); ok {
			out = append(out, st)
		}
	}
	return out
}

// parseStat parses "pid (comm) state ppid pgrp session ..."; comm may hold
// spaces and parentheses, so fields are counted from the last ')'.
func parseStat(pid int, data []byte) (procStat, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	st := procStat{pid: pid, state: f[0][0]}
	var err1, err2, err3 error
	st.ppid, err1 = strconv.Atoi(string(f[1]))
	st.pgrp, err2 = strconv.Atoi(string(f[2]))
	st.sid, err3 = strconv.Atoi(string(f[3]))
	return st, err1 == nil && err2 == nil && err3 == nil
}

// childStats reads the stat of each child of process self, as listed by
// /proc/self/task/*/children (a child belongs to the thread that forked it,
// or that it was re-parented to); without those files (a kernel built
// without them) it scans all of /proc.
func childStats(self int) []procStat {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []procStat
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
			stat, err := os.ReadFile("/proc/" + string(f) + "/stat")
			if err != nil {
				continue // reaped meanwhile
			}
			if st, ok := parseStat(pid, stat); ok && st.ppid == self {
				out = append(out, st)
			}
		}
	}
	if found {
		return out
	}
	for _, p := range listProcs() {
		if p.ppid == self {
			out = append(out, p)
		}
	}
	return out
}
