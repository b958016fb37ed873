package execute

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkRunTrue measures the fixed cost of one command: guard start,
// fork, exec and wait, with the dedicated guard and with the self re-exec
// fallback (whose cost grows with the size of the running binary: this test
// binary is small, delta-run is not).
func BenchmarkRunTrue(b *testing.B) {
	forEachGuardB(b, func(b *testing.B) {
		for b.Loop() {
			if _, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGuardStart is the dedicated guard binary's own start-up and
// exit (it prints its help and exits), spawned with os/exec: compare with
// BenchmarkExecTrue.
func BenchmarkGuardStart(b *testing.B) {
	for b.Loop() {
		if err := exec.Command(dedicatedGuard, "--help").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// forEachGuardB is forEachGuard for benchmarks.
func forEachGuardB(b *testing.B, f func(b *testing.B)) {
	for _, mode := range []struct{ name, path string }{{"guard=dedicated", dedicatedGuard}, {"guard=self", ""}} {
		b.Run(mode.name, func(b *testing.B) {
			useGuard(b, mode.path)
			f(b)
		})
	}
}

// BenchmarkRun50MB streams 50 MB through Run and reports how much our heap
// grew (peak-ish, sampled after the run): it must stay near MaxCapture, not
// near the output size.
func BenchmarkRun50MB(b *testing.B) {
	forEachGuardB(b, func(b *testing.B) { bench50MB(b, func(dir string) Spec { return Spec{OutputDir: dir} }) })
}

// BenchmarkRun50MBLogs compares the ways a command tool's logs are
// written: spill (OutputDir with LogsWhenCut: the log is made when the
// capture overflows, as command tools did before their output was live)
// and live (StdoutFile from the first byte, as they do now, so that the
// output can be followed while it comes).
func BenchmarkRun50MBLogs(b *testing.B) {
	b.Run("logs=spill", func(b *testing.B) {
		bench50MB(b, func(dir string) Spec { return Spec{OutputDir: dir, LogsWhenCut: true} })
	})
	b.Run("logs=live", func(b *testing.B) {
		bench50MB(b, func(dir string) Spec {
			return Spec{StdoutFile: filepath.Join(dir, "o.stdout"), StderrFile: filepath.Join(dir, "o.stderr"), LogsWhenCut: true}
		})
	})
}

func bench50MB(b *testing.B, spec func(dir string) Spec) {
	dir := b.TempDir()
	var worst uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := spec(dir)
		s.Argv = []string{"sh", "-c", "head -c 52428800 /dev/zero"}
		res, err := Run(context.Background(), s)
		runtime.ReadMemStats(&after)
		if err != nil || res.StdoutBytes != 50<<20 {
			b.Fatalf("Run: %v, %d bytes", err, res.StdoutBytes)
		}
		worst = max(worst, after.TotalAlloc-before.TotalAlloc)
	}
	b.ReportMetric(float64(worst)/(1<<20), "MiB-alloc/op")
	b.SetBytes(50 << 20)
}

// BenchmarkExecTrue is the baseline without the guard: os/exec alone.
func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
