package sys

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The layout of darwin's struct kinfo_proc (sys/sysctl.h) on its two
// 64-bit targets, amd64 and arm64, which share it: the parts Delta reads
// from sysctl kern.proc.pid.PID and kern.proc.all. The darwin build checks
// every offset against golang.org/x/sys/unix.KinfoProc at compile time
// (kinfo_darwin.go), so a layout change there cannot go unnoticed; the
// parser itself has no build tag and is tested on any machine against
// recorded samples.
const (
	kinfoSize      = 648 // sizeof(struct kinfo_proc)
	kinfoStartSec  = 0   // kp_proc.p_starttime.tv_sec (int64)
	kinfoStartUsec = 8   // kp_proc.p_starttime.tv_usec (int32)
	kinfoStat      = 36  // kp_proc.p_stat (char)
	kinfoPID       = 40  // kp_proc.p_pid (int32)
	kinfoComm      = 243 // kp_proc.p_comm (char[MAXCOMLEN+1])
	kinfoCommLen   = 17
	kinfoEproc     = 296              // kp_eproc
	kinfoPPID      = kinfoEproc + 264 // kp_eproc.e_ppid (int32)
	kinfoPGID      = kinfoEproc + 268 // kp_eproc.e_pgid (int32)

	// darwinSZOMB is p_stat's value for a zombie (sys/proc.h).
	darwinSZOMB = 5
)

// kinfo is one parsed kinfo_proc: the process and its command name.
type kinfo struct {
	ProcInfo
	Name string
}

// parseKinfo parses the kinfo_proc records of a sysctl answer (one for
// kern.proc.pid, any number for kern.proc.all; both little-endian). The
// session id is not in the record (only a kernel pointer to it): SID is
// left 0 for the caller to ask getsid(2).
func parseKinfo(data []byte) ([]kinfo, error) {
	if len(data)%kinfoSize != 0 {
		return nil, fmt.Errorf("parse kinfo_proc: %d bytes is not a whole number of %d-byte records", len(data), kinfoSize)
	}
	le := binary.LittleEndian
	out := make([]kinfo, 0, len(data)/kinfoSize)
	for ; len(data) > 0; data = data[kinfoSize:] {
		r := data[:kinfoSize]
		sec := int64(le.Uint64(r[kinfoStartSec:]))
		usec := int64(int32(le.Uint32(r[kinfoStartUsec:])))
		var k kinfo
		k.PID = int(int32(le.Uint32(r[kinfoPID:])))
		k.PPID = int(int32(le.Uint32(r[kinfoPPID:])))
		k.PGID = int(int32(le.Uint32(r[kinfoPGID:])))
		k.Zombie = r[kinfoStat] == darwinSZOMB
		if sec > 0 {
			k.Start = uint64(sec)*1e6 + uint64(usec)
		}
		comm := r[kinfoComm : kinfoComm+kinfoCommLen]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		k.Name = string(comm)
		out = append(out, k)
	}
	return out, nil
}
