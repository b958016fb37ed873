package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/runs"
)

// cpuOf is the CPU time (user + system) of a finished command: its own and
// that of the children it waited for (a run's tools).
func cpuOf(cmd *exec.Cmd) time.Duration {
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkVersionVsMinimal runs `delta-run --version`, built as make
// build builds it, alternating with a minimal Go program built the same
// way, and reports both and their ratios, of wall time and of CPU time:
// the price of delta-run's start-up (process start, page faults of the
// binary, package initialisation, the command line's parser) measured in
// the same run, so the machine's load weighs on both alike.
func BenchmarkVersionVsMinimal(b *testing.B) {
	bin := filepath.Join(clitest.ReleaseBinDir(b), "delta-run")
	hello := clitest.Hello(b)
	var wall, helloWall, cpu, helloCPU time.Duration
	for b.Loop() {
		h := exec.Command(hello)
		t0 := time.Now()
		if err := h.Run(); err != nil {
			b.Fatalf("hello: %v", err)
		}
		t1 := time.Now()
		d := exec.Command(bin, "--version")
		if out, err := d.Output(); err != nil || !bytes.HasPrefix(out, []byte("delta-run ")) {
			b.Fatalf("delta-run --version = %q, %v", out, err)
		}
		wall, helloWall = wall+time.Since(t1), helloWall+t1.Sub(t0)
		cpu, helloCPU = cpu+cpuOf(d), helloCPU+cpuOf(h)
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Microseconds())/1e3/n, "version-ms/op")
	b.ReportMetric(float64(helloWall.Microseconds())/1e3/n, "minimal-ms/op")
	b.ReportMetric(float64(wall)/float64(helloWall), "x-minimal-wall")
	b.ReportMetric(float64(cpu.Microseconds())/1e3/n, "version-cpu-ms/op")
	b.ReportMetric(float64(helloCPU.Microseconds())/1e3/n, "minimal-cpu-ms/op")
	b.ReportMetric(float64(cpu)/float64(helloCPU), "x-minimal-cpu")
}

// releaseRun prepares delta-run (built as make build builds it) for a run
// of the agent in agentDir against the fake model at baseURL.
func releaseRun(b *testing.B, bin, agentDir, baseURL string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "delta-run"), append([]string{"run", "--agent", agentDir, "-w", b.TempDir(), "-m", "go", "--format", "json"}, args...)...)
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "NO_COLOR=1",
		"DELTA_BASE_URL=" + baseURL, "DELTA_API_KEY=bench-key"}
	return cmd
}

// checkCompleted checks a run's JSON result: completed after iterations.
func checkCompleted(b *testing.B, out []byte, iterations int) {
	var res struct {
		Status  runs.Status `json:"status"`
		Metrics struct {
			Iterations int `json:"iterations"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Status != runs.Completed || res.Metrics.Iterations != iterations {
		b.Fatalf("delta-run result %s (%v), want completed after %d iterations", out, err, iterations)
	}
}

// BenchmarkOneToolCall runs a whole run of delta-run (built as make build
// builds it) in which the model calls one command tool (`true`) and then
// answers, and reports its CPU time with its tool's and its guard's
// (cpu-ms/run, from wait4) and its wall time: what a user's short run costs,
// start-up, agent loading, two model calls over HTTP, the journal and one
// tool through the guard. The sandboxed variant confines the tool
// (workspace-write).
func BenchmarkOneToolCall(b *testing.B) {
	for _, mode := range []string{"danger-full-access", "workspace-write"} {
		b.Run(mode, func(b *testing.B) {
			bin := clitest.ReleaseBinDir(b)
			srv := llmtest.NewServer(b)
			agentDir := writeAgent(b, "llm:\n  model: bench\ntools:\n  - name: t\n    exec: \"true ${n}\"\n", nil)
			var cpu, wall time.Duration
			for b.Loop() {
				srv.ReplyToolCalls(llm.ToolCall{Name: "t", Arguments: `{"n":"1"}`})
				srv.ReplyText("done")
				cmd := releaseRun(b, bin, agentDir, srv.URL, "--sandbox", mode)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				start := time.Now()
				err := cmd.Run()
				wall += time.Since(start)
				if err != nil {
					b.Fatalf("delta-run: %v\n%s", err, errb.String())
				}
				checkCompleted(b, out.Bytes(), 2)
				cpu += cpuOf(cmd)
			}
			n := float64(b.N)
			b.ReportMetric(float64(cpu.Microseconds())/1e3/n, "cpu-ms/run")
			b.ReportMetric(float64(wall.Microseconds())/1e3/n, "wall-ms/run")
		})
	}
}

// Concurrent runs: how many, of how many iterations, at what model latency.
const (
	concurrentRuns       = 30
	concurrentIterations = 10
	modelLatency         = 200 * time.Millisecond
)

// BenchmarkConcurrentRuns starts 30 runs of delta-run (built as make build
// builds it) at once against one fake model server that takes 0.2 s for
// every answer; each run makes 10 iterations, a command tool call (`true`)
// in each but the last. It reports the CPU time per iteration (delta-run's
// with its tools', summed over all runs) and the wall time against the
// ideal, the model's latency alone (10 answers of 0.2 s): what a machine
// running many agents at once pays for Delta beyond waiting on the model.
func BenchmarkConcurrentRuns(b *testing.B) {
	bin := clitest.ReleaseBinDir(b)
	agentDir := writeAgent(b, fmt.Sprintf("llm:\n  model: bench\nmax_iterations: %d\ntools:\n  - name: t\n    exec: \"true ${n}\"\n", concurrentIterations+5), nil)
	// One server, one queue per run under its own path, so that every
	// run gets its own answers in order.
	mux := http.NewServeMux()
	fakes := make([]*llmtest.Server, concurrentRuns)
	for i := range fakes {
		fakes[i] = &llmtest.Server{}
		fakes[i].Delay(modelLatency)
		prefix := fmt.Sprintf("/run%d", i)
		mux.Handle(prefix+"/", http.StripPrefix(prefix, fakes[i].Handler()))
	}
	hs := httptest.NewServer(mux)
	b.Cleanup(hs.Close)
	var wall, cpu time.Duration
	for b.Loop() {
		cmds := make([]*exec.Cmd, concurrentRuns)
		outs := make([]bytes.Buffer, concurrentRuns)
		errs := make([]bytes.Buffer, concurrentRuns)
		for i, f := range fakes {
			for n := 1; n < concurrentIterations; n++ {
				f.ReplyToolCalls(llm.ToolCall{Name: "t", Arguments: fmt.Sprintf(`{"n":"%d"}`, n)})
			}
			f.ReplyText("done")
			cmds[i] = releaseRun(b, bin, agentDir, fmt.Sprintf("%s/run%d/v1", hs.URL, i))
			cmds[i].Stdout, cmds[i].Stderr = &outs[i], &errs[i]
		}
		start := time.Now()
		var wg sync.WaitGroup
		failed := make([]error, concurrentRuns)
		for i, cmd := range cmds {
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); failed[i] = cmd.Wait() }()
		}
		wg.Wait()
		wall += time.Since(start)
		for i, cmd := range cmds {
			if failed[i] != nil {
				b.Fatalf("run %d: %v\n%s", i, failed[i], errs[i].String())
			}
			checkCompleted(b, outs[i].Bytes(), concurrentIterations)
			cpu += cpuOf(cmd)
		}
	}
	n := float64(b.N)
	ideal := concurrentIterations * modelLatency
	b.ReportMetric(float64(cpu.Microseconds())/1e3/n/(concurrentRuns*concurrentIterations), "cpu-ms/iteration")
	b.ReportMetric(float64(wall.Microseconds())/1e6/n, "wall-s")
	b.ReportMetric(float64(wall)/n/float64(ideal), "x-ideal")
}
