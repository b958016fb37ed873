package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// BenchmarkMirroredIteration runs the same scripted run of 20 tool
// iterations with the real binaries, locally and with --cluster against
// one in-process node, and reports the added latency per iteration.
func BenchmarkMirroredIteration(b *testing.B) {
	const iterations = 20
	bin := clitest.BinDir(b)
	one := clustertest.StartSingle(b, cluster.Settings{})
	agent := benchAgent(b, iterations)
	var local, mirrored time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		local += benchRun(b, bin, agent, fmt.Sprintf("l%d", i))
		mirrored += benchRun(b, bin, agent, fmt.Sprintf("m%d", i), "--cluster", one.URL)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N*iterations) }
	b.ReportMetric(per(local), "local-µs/iter")
	b.ReportMetric(per(mirrored), "mirrored-µs/iter")
	b.ReportMetric(per(mirrored-local), "added-µs/iter")
}

func benchAgent(b *testing.B, iterations int) string {
	dir := b.TempDir()
	var script strings.Builder
	script.WriteString("turns:\n")
	for range iterations {
		script.WriteString("  - tool_calls:\n      - name: nothing\n        args: {}\n")
	}
	script.WriteString("  - content: done\n")
	files := map[string]string{
		"agent.yaml":       "name: bench\nllm:\n  provider: scripted\n  script: script.yaml\nmax_iterations: 100\ntools:\n  - name: nothing\n    exec: /bin/true\n",
		"system_prompt.md": "x\n",
		"context.yaml":     "sources:\n  - type: journal\n    id: conversation_history\n",
		"script.yaml":      script.String(),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchRun(b *testing.B, bin, agent, id string, extra ...string) time.Duration {
	ws := filepath.Join(b.TempDir(), "ws")
	args := append([]string{"run", "--agent", agent, "-w", ws, "--run-id", id, "-m", "go", "--format", "raw"}, extra...)
	cmd := exec.Command(filepath.Join(bin, "delta-run"), args...)
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "DELTA_CLUSTER=")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("delta-run %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return time.Since(start)
}
