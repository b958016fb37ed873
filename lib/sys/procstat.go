package sys

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// errStat is the error of a /proc/PID/stat line that cannot be parsed.
var errStat = errors.New("parse /proc stat")

// parseProcStat parses a Linux /proc/PID/stat line: "pid (comm) state
// ppid pgrp session ... starttime ...". The command name may hold spaces
// and parentheses, so fields are counted after the last ')'. Start is
// field 22; a line cut short before it (never seen from a real kernel)
// leaves Start 0. No build tag: it is tested everywhere.
func parseProcStat(pid int, data []byte) (ProcInfo, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ProcInfo{}, fmt.Errorf("%w %q: no command name", errStat, data)
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state), so field 22 (starttime) is f[19].
	if len(f) < 4 || len(f[0]) != 1 {
		return ProcInfo{}, fmt.Errorf("%w %q: too few fields", errStat, data)
	}
	p := ProcInfo{PID: pid, Zombie: f[0][0] == 'Z' || f[0][0] == 'X'}
	var err1, err2, err3 error
	p.PPID, err1 = strconv.Atoi(string(f[1]))
	p.PGID, err2 = strconv.Atoi(string(f[2]))
	p.SID, err3 = strconv.Atoi(string(f[3]))
	if err := errors.Join(err1, err2, err3); err != nil {
		return ProcInfo{}, fmt.Errorf("%w %q: %v", errStat, data, err)
	}
	if len(f) >= 20 {
		ticks, err := strconv.ParseUint(string(f[19]), 10, 64)
		if err != nil {
			return ProcInfo{}, fmt.Errorf("%w start time: %v", errStat, err)
		}
		p.Start = ticks
	}
	return p, nil
}
