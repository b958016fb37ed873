package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/tool"
)

// loopIterations is the length of the loop benchmark's runs.
const loopIterations = 300

// BenchmarkDeltaRunVsMinimalClient runs the real delta-run binary for a
// 300-iteration run against a local OpenAI-compatible server (every
// iteration one model call and one command tool, `true`), and next to it a
// minimal client that makes the same model requests (the growing
// conversation, the same tools) and the same forks from this process. It
// reports how many times longer delta-run takes (x-minimal), the engine's
// overhead per iteration beyond the minimal client (overhead-µs/iter),
// delta-run's peak RSS and both times per iteration. (Fsyncs per
// iteration are counted in-process by BenchmarkLoop300Iterations.)
func BenchmarkDeltaRunVsMinimalClient(b *testing.B) {
	bin := clitest.BinDir(b)
	srv := llmtest.NewServer(b)
	agentDir := writeAgent(b, "llm:\n  model: bench\nmax_iterations: 400\ntools:\n  - name: t\n    exec: \"true ${n}\"\n", nil)
	var delta, minimal, cpu, self time.Duration
	var rss float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		queueLoop(srv)
		d, c, s, maxRSS := timeDeltaRun(b, bin, srv.URL, agentDir)
		delta += d
		cpu += c
		self += s
		rss = max(rss, maxRSS)
		deltaLast := lastRequest(srv)
		queueLoop(srv)
		minimal += timeMinimalClient(b, srv.URL)
		if minLast := lastRequest(srv); len(minLast.Messages) != len(deltaLast.Messages) || len(minLast.Tools) != len(deltaLast.Tools) {
			b.Fatalf("the minimal client's last request has %d messages and %d tools, delta-run's %d and %d: not the same requests",
				len(minLast.Messages), len(minLast.Tools), len(deltaLast.Messages), len(deltaLast.Tools))
		} else if i == 0 {
			b.Logf("last request: delta-run %d bytes, minimal client %d bytes", len(deltaLast.Body), len(minLast.Body))
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(delta)/float64(minimal), "x-minimal")
	b.ReportMetric(float64(delta-minimal)/n/1e3/loopIterations, "overhead-µs/iter")
	b.ReportMetric(float64(delta)/n/1e3/loopIterations, "delta-µs/iter")
	b.ReportMetric(float64(minimal)/n/1e3/loopIterations, "minimal-µs/iter")
	b.ReportMetric(rss/1024, "peak-RSS-MB")
	// CPU time (user + system) is steadier than wall time on a busy
	// machine: delta-run's with its tools' processes, and its own.
	b.ReportMetric(float64(cpu)/n/1e3/loopIterations, "delta-cpu-µs/iter")
	b.ReportMetric(float64(self)/n/1e3/loopIterations, "engine-cpu-µs/iter")
}

// lastRequest is the last request the server received.
func lastRequest(srv *llmtest.Server) llmtest.Recorded {
	reqs := srv.Requests()
	return reqs[len(reqs)-1]
}

// queueLoop queues the model's answers of one run: a tool call per
// iteration, then a final text.
func queueLoop(srv *llmtest.Server) {
	for n := 1; n < loopIterations; n++ {
		srv.ReplyToolCalls(llm.ToolCall{Name: "t", Arguments: fmt.Sprintf(`{"n":"%d"}`, n)})
	}
	srv.ReplyText("done")
}

// timeDeltaRun runs delta-run to completion and returns how long it took,
// its CPU time with its children's (the tools'), its own CPU time and its
// own peak RSS in KiB.
func timeDeltaRun(b *testing.B, bin, baseURL, agentDir string) (time.Duration, time.Duration, time.Duration, float64) {
	b.Helper()
	ws := b.TempDir()
	cmd := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", agentDir, "-w", ws, "-m", "go",
		"--run-id", "bench", "--max-iterations", fmt.Sprint(loopIterations), "--format", "json")
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "NO_COLOR=1",
		"DELTA_BASE_URL=" + baseURL, "DELTA_API_KEY=bench-key"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		b.Fatal(err)
	}
	watched := watchProcess(cmd.Process.Pid)
	err = cmd.Wait()
	elapsed := time.Since(start)
	rss, self := watched()
	if err != nil {
		b.Fatalf("delta-run: %v\n%s", err, errb.String())
	}
	checkCompleted(b, out.Bytes(), loopIterations)
	return elapsed, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), self, rss
}

// minimalMessage and minimalTool are the chat completions wire shapes.
type minimalMessage struct {
	Role       string        `json:"role"`
	Content    string        `json:"content"`
	ToolCalls  []minimalCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type minimalCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type minimalTool struct {
	Type     string       `json:"type"`
	Function llm.ToolSpec `json:"function"`
}

// timeMinimalClient runs the loop a minimal hand-written agent would: keep
// the conversation in memory, post it with the tools, fork the tool
// command for each call, until a text answer.
func timeMinimalClient(b *testing.B, baseURL string) time.Duration {
	b.Helper()
	tools := []minimalTool{
		{Type: "function", Function: llm.ToolSpec{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}},"required":["n"]}`)}},
		{Type: "function", Function: tool.AskHumanSpec()},
	}
	msgs := []minimalMessage{{Role: "system", Content: "# Context Block: system_prompt\n\nYou are a test agent.\n"}, {Role: "user", Content: "go"}}
	client := &http.Client{}
	start := time.Now()
	for it := 1; ; it++ {
		body, err := json.Marshal(map[string]any{"model": "bench", "messages": msgs, "tools": tools})
		if err != nil {
			b.Fatal(err)
		}
		req, err := http.NewRequest("POST", baseURL+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer bench-key")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var completion struct {
			Choices []struct {
				Message minimalMessage `json:"message"`
			} `json:"choices"`
		}
		err = json.NewDecoder(resp.Body).Decode(&completion)
		resp.Body.Close()
		if err != nil || len(completion.Choices) == 0 {
			b.Fatalf("minimal client: iteration %d: %v", it, err)
		}
		answer := completion.Choices[0].Message
		msgs = append(msgs, answer)
		if len(answer.ToolCalls) == 0 {
			if it != loopIterations {
				b.Fatalf("minimal client: %d iterations, want %d", it, loopIterations)
			}
			return time.Since(start)
		}
		for _, c := range answer.ToolCalls {
			var args struct{ N string }
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				b.Fatal(err)
			}
			if err := exec.Command("true", args.N).Run(); err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, minimalMessage{Role: "tool", Content: "(no output)", ToolCallID: c.ID})
		}
	}
}

// watchProcess samples the VmHWM (peak resident set) and the CPU time of
// process pid itself (its children excluded) until the returned function
// is called, which returns the last values seen: the peak in KiB and the
// CPU time. The rusage of wait4 is no use here: its maxrss is that of the
// largest of the process and all its descendants, and its CPU time
// includes theirs.
func watchProcess(pid int) func() (float64, time.Duration) {
	status, stat := fmt.Sprintf("/proc/%d/status", pid), fmt.Sprintf("/proc/%d/stat", pid)
	done := make(chan struct{})
	var peak float64
	var cpu time.Duration
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb, ok := readHWM(status); ok {
				peak = max(peak, kb)
			}
			if c, ok := readCPU(stat); ok {
				cpu = max(cpu, c)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (float64, time.Duration) {
		close(done)
		<-finished
		return peak, cpu
	}
}

// readHWM reads the VmHWM line of a /proc/PID/status file.
func readHWM(path string) (float64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err == nil {
				return kb, true
			}
		}
	}
	return 0, false
}

// readCPU reads utime + stime of a /proc/PID/stat file (in clock ticks of
// 10 ms, the USER_HZ of Linux).
func readCPU(path string) (time.Duration, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: fields follow it.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
