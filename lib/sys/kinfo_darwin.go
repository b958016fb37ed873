package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The offsets parseKinfo reads, checked against x/sys's kinfo_proc at
// compile time: each constant below is a uint holding a difference, so a
// mismatch in either direction is a negative constant, which does not
// compile ("overflows uint").
var kp unix.KinfoProc

const (
	_ = uint(kinfoSize-unsafe.Sizeof(kp)) + uint(unsafe.Sizeof(kp)-kinfoSize)
	_ = uint(kinfoStartSec-unsafe.Offsetof(kp.Proc.P_starttime)) + uint(unsafe.Offsetof(kp.Proc.P_starttime)-kinfoStartSec)
	_ = uint(kinfoStartUsec-unsafe.Offsetof(kp.Proc.P_starttime.Usec)) + uint(unsafe.Offsetof(kp.Proc.P_starttime.Usec)-kinfoStartUsec)
	_ = uint(kinfoStat-unsafe.Offsetof(kp.Proc.P_stat)) + uint(unsafe.Offsetof(kp.Proc.P_stat)-kinfoStat)
	_ = uint(kinfoPID-unsafe.Offsetof(kp.Proc.P_pid)) + uint(unsafe.Offsetof(kp.Proc.P_pid)-kinfoPID)
	_ = uint(kinfoComm-unsafe.Offsetof(kp.Proc.P_comm)) + uint(unsafe.Offsetof(kp.Proc.P_comm)-kinfoComm)
	_ = uint(kinfoCommLen-len(kp.Proc.P_comm)) + uint(len(kp.Proc.P_comm)-kinfoCommLen)
	_ = uint(kinfoEproc-unsafe.Offsetof(kp.Eproc)) + uint(unsafe.Offsetof(kp.Eproc)-kinfoEproc)
	_ = uint(kinfoPPID-kinfoEproc-unsafe.Offsetof(kp.Eproc.Ppid)) + uint(unsafe.Offsetof(kp.Eproc.Ppid)-(kinfoPPID-kinfoEproc))
	_ = uint(kinfoPGID-kinfoEproc-unsafe.Offsetof(kp.Eproc.Pgid)) + uint(unsafe.Offsetof(kp.Eproc.Pgid)-(kinfoPGID-kinfoEproc))
)
