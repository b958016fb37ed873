package sys

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kinfoRecord builds one darwin kinfo_proc record as sysctl returns it
// (little-endian, 648 bytes), with the fields parseKinfo reads set and
// every other byte a filler that must not leak into the result.
func kinfoRecord(pid, ppid, pgid int32, sec int64, usec int32, stat byte, comm string) []byte {
	r := make([]byte, kinfoSize)
	for i := range r {
		r[i] = 0xa5
	}
	le := binary.LittleEndian
	le.PutUint64(r[kinfoStartSec:], uint64(sec))
	le.PutUint32(r[kinfoStartUsec:], uint32(usec))
	r[kinfoStat] = stat
	le.PutUint32(r[kinfoPID:], uint32(pid))
	le.PutUint32(r[kinfoPPID:], uint32(ppid))
	le.PutUint32(r[kinfoPGID:], uint32(pgid))
	c := make([]byte, kinfoCommLen)
	copy(c, comm)
	copy(r[kinfoComm:], c)
	return r
}

func TestParseKinfo(t *testing.T) {
	// Two records as kern.proc.all lists them: a running delta-run
	// (SRUN = 2) and a zombie whose name fills p_comm to its limit.
	data := append(
		kinfoRecord(4242, 1, 4242, 1_700_000_000, 123456, 2, "delta-run"),
		kinfoRecord(77, 4242, 4242, 1_700_000_100, 0, darwinSZOMB, "a-sixteen-chars!")...)
	got, err := parseKinfo(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []kinfo{
		{ProcInfo{PID: 4242, PPID: 1, PGID: 4242, Start: 1_700_000_000_123_456}, "delta-run"},
		{ProcInfo{PID: 77, PPID: 4242, PGID: 4242, Start: 1_700_000_100_000_000, Zombie: true}, "a-sixteen-chars!"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseKinfo mismatch (-want +got):\n%s", diff)
	}
}

func TestParseKinfoEmptyAndTorn(t *testing.T) {
	// kern.proc.pid of a pid nobody has answers with no record at all.
	if got, err := parseKinfo(nil); err != nil || len(got) != 0 {
		t.Errorf("parseKinfo(nil) = %v, %v; want no records", got, err)
	}
	if _, err := parseKinfo(make([]byte, kinfoSize+1)); err == nil {
		t.Error("parseKinfo of a partial record succeeded")
	}
}
