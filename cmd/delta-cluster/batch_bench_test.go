package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// BenchmarkBatchTwoWorkers is the throughput of a batch over two workers
// (one slot each) with a scripted model that answers at once: b.N tasks
// submitted and waited for, reported as tasks/s. What it measures is the
// per-task cost of the worker path: fetch, lease, records, a delta-run
// process, result and ack.
func BenchmarkBatchTwoWorkers(b *testing.B) {
	one := clustertest.StartSingle(b, cluster.Settings{LeaseTTL: 10 * time.Second})
	c := clustertest.Connect(b, one.URL)
	environ := env(b, one.URL)
	root := b.TempDir()
	agent := writeAgent(b, map[string]string{
		"agent.yaml":  "name: quick\nllm:\n  provider: scripted\n  script: script.yaml\n",
		"script.yaml": "turns:\n  - content: done\n",
	})
	for _, name := range []string{"w1", "w2"} {
		start(b, environ, "worker", "--queue", "qb", "--name", name, "--root", filepath.Join(root, name))
	}
	poll(b, "both workers", func() bool { ws, _ := c.Workers(ctxT(b)); return len(ws) == 2 })
	var tasks []map[string]any
	for i := range b.N {
		tasks = append(tasks, map[string]any{"id": fmt.Sprintf("t%d", i), "message": "go"})
	}
	file := writeTasks(b, tasks)
	batch := fmt.Sprintf("bench%d_%d", b.N, time.Now().UnixNano())
	b.ResetTimer()
	began := time.Now()
	if _, code := run(b, environ, "batch", "submit", file, "--agent", agent, "--queue", "qb", "--batch", batch); code != 0 {
		b.Fatal("submit failed")
	}
	if _, code := run(b, environ, "batch", "wait", batch); code != 0 {
		b.Fatal("wait failed")
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "tasks/s")
}

// BenchmarkDeltaRunTwoAtATime is the baseline of BenchmarkBatchTwoWorkers:
// the same agent run b.N times by delta-run directly, two at a time, with
// no cluster. The ratio of the two is what the cluster path costs.
func BenchmarkDeltaRunTwoAtATime(b *testing.B) {
	environ := env(b, "")
	root := b.TempDir()
	agent := writeAgent(b, map[string]string{
		"agent.yaml":  "name: quick\nllm:\n  provider: scripted\n  script: script.yaml\n",
		"script.yaml": "turns:\n  - content: done\n",
	})
	deltaRun := filepath.Join(clitest.BinDir(b), "delta-run")
	next := make(chan int)
	var wg sync.WaitGroup
	b.ResetTimer()
	began := time.Now()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				id := fmt.Sprintf("r%d", i)
				cmd := exec.Command(deltaRun, "run", agent, "-w", filepath.Join(root, id), "--run-id", id, "-m", "go",
					"--approvals", "deny", "--format", "json")
				cmd.Env = environ
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Errorf("delta-run: %v\n%s", err, out)
				}
			}
		}()
	}
	for i := range b.N {
		next <- i
	}
	close(next)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "tasks/s")
}
