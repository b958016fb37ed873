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
