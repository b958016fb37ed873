package sys

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// selfExe is the binary's path as the process started: darwin has no
// /proc/self/exe naming the running file itself.
var selfExe = sync.OnceValue(func() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
})

// SelfExe names the running program's own binary for re-executing it.
// Darwin: the path it was started from (os.Executable, looked up once),
// so a binary replaced on disk since is the one re-executed.
func SelfExe() string { return selfExe() }

// Stat describes process pid; an error that errors.Is fs.ErrNotExist when
// there is no such process. Darwin: sysctl kern.proc.pid.PID (the
// kinfo_proc record) and getsid(2) for the session.
func Stat(pid int) (ProcInfo, error) {
	k, err := statKinfo(pid)
	return k.ProcInfo, err
}

func statKinfo(pid int) (kinfo, error) {
	data, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return kinfo{}, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	ks, err := parseKinfo(data)
	if err != nil {
		return kinfo{}, err
	}
	if len(ks) == 0 || ks[0].PID != pid {
		return kinfo{}, fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	}
	k := ks[0]
	if k.SID, err = unix.Getsid(pid); err != nil && !k.Zombie {
		return kinfo{}, fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	}
	return k, nil
}

// Name is the process's command name (for a running Delta binary, its
// file name, cut to the kernel's limit), or "" when it cannot be read.
// Darwin: kinfo_proc p_comm, at most 16 bytes.
func Name(pid int) string {
	k, err := statKinfo(pid)
	if err != nil {
		return ""
	}
	return k.Name
}

// StartTime converts p.Start to the wall-clock time the process started.
// Darwin: p.Start is that time, in microseconds.
func StartTime(p ProcInfo) (time.Time, error) {
	return time.UnixMicro(int64(p.Start)), nil
}

// AllProcs describes every process; processes that vanish while they are
// read are skipped. Darwin: sysctl kern.proc.all, then getsid(2) for each
// process's session.
func AllProcs() []ProcInfo {
	data, err := unix.SysctlRaw("kern.proc.all")
	if err != nil {
		return nil
	}
	ks, err := parseKinfo(data)
	if err != nil {
		return nil
	}
	out := make([]ProcInfo, 0, len(ks))
	for _, k := range ks {
		sid, err := unix.Getsid(k.PID)
		if err != nil {
			continue // gone meanwhile (or a zombie, which has no session)
		}
		k.SID = sid
		out = append(out, k.ProcInfo)
	}
	return out
}

// SelfChildren describes the children of the calling process. Darwin: a
// scan of every process (AllProcs).
func SelfChildren() []ProcInfo {
	self := os.Getpid()
	var out []ProcInfo
	for _, p := range AllProcs() {
		if p.PPID == self {
			out = append(out, p)
		}
	}
	return out
}
