package sessions

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user+system CPU time used so far by this process and its
// waited-for children: a figure a loaded machine disturbs far less than
// wall-clock time. (Holders are not waited for, so interpreter CPU time
// spent in the holder is not counted.)
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// reportCPU adds a cpu-ms/op metric for the loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// The benchmarks compare an exec round trip through a session with running
// the bare command, to show the overhead of keeping state.

func BenchmarkBareBash(b *testing.B) {
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		if err := exec.Command("bash", "-c", "echo hi").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecBash(b *testing.B) {
	st, opt := testStore(b)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		if _, err := st.Exec(m.SessionID, "echo hi", DefaultTimeout); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFreshPython(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		if err := exec.Command("python3", "-c", "print(1)").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecPython(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	st, opt := testStore(b)
	m, err := st.Start([]string{"python3"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer st.End(m.SessionID)
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		if _, err := st.Exec(m.SessionID, "print(1)", DefaultTimeout); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShellWrapper runs only the bash wrapper (restore, run, dump),
// without the session bookkeeping of Exec (lock, metadata, history).
func BenchmarkShellWrapper(b *testing.B) {
	st, opt := testStore(b)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	dir := st.Path(m.SessionID)
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		cmd, _ := shellCommand(dir, m, "bench", splitSecrets(os.Environ()).secrets)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if _, err := runGroup(cmd, DefaultTimeout, nil); err != nil {
			b.Fatal(err)
		}
	}
}
