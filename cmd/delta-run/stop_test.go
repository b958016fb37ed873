package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/runs"
)

// startLongRun starts a run whose tool (script: the tool's shell code)
// writes its pid to WS/tool.pid and then runs long; it returns once the
// tool runs.
func startLongRun(t *testing.T, script, id string) (ws string, cmd *exec.Cmd, errb *bytes.Buffer, toolPID int) {
	t.Helper()
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: long\n    exec: \"sh ${AGENT_HOME}/long.sh\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: long\n        args: {}\n  - content: done\n",
			"long.sh": "echo $$ > tool.pid\n" + script + "\n"})
	ws = t.TempDir()
	cmd = deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", id)
	errb = &bytes.Buffer{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pidFile := filepath.Join(ws, "tool.pid")
	waitFor(t, "the tool to start", func() bool {
		data, err := os.ReadFile(pidFile)
		return err == nil && bytes.HasSuffix(data, []byte("\n"))
	})
	data, _ := os.ReadFile(pidFile)
	toolPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	return ws, cmd, errb, toolPID
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestStopRunInsideLongTool: stop interrupts a run busy in a 30 s tool
// as Ctrl-C does: the run ends INTERRUPTED (exit 130), the tool's process
// is gone, and stop prints the outcome as JSON.
func TestStopRunInsideLongTool(t *testing.T) {
	ws, cmd, errb, toolPID := startLongRun(t, "sleep 30", "long")
	stdout, stderr, code := runDelta(t, nil, "stop", "--run-id", "long", "-w", ws)
	if code != 0 {
		t.Fatalf("stop exit %d\n%s", code, stderr)
	}
	var res stopResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Status != "INTERRUPTED" || res.Signal != "SIGINT" || res.RunID != "long" {
		t.Errorf("stop printed %q (%v), want status INTERRUPTED after SIGINT", stdout, err)
	}
	if code := exitCode(cmd.Wait()); code != 130 {
		t.Errorf("run exit %d, want 130\n%s", code, errb)
	}
	waitFor(t, "the tool to be gone", func() bool { return processGone(toolPID) })
	if _, stderr, code := runDelta(t, nil, "stop", "--run-id", "long", "-w", ws); code != exitNotRunning ||
		!strings.Contains(stderr, "run long is not running: it is INTERRUPTED") || !strings.Contains(stderr, "delta continue --run-id long") {
		t.Errorf("stop of a stopped run: exit %d, want %d with a hint to continue\n%s", code, exitNotRunning, stderr)
	}
}

// TestStopForce: a run that does not stop in time (its tool ignores
// SIGTERM, so the tool's grace period outlasts --timeout) is left alone
// without --force and killed with it, then marked INTERRUPTED.
func TestStopForce(t *testing.T) {
	ws, cmd, _, toolPID := startLongRun(t, "trap '' TERM INT; sleep 30", "stubborn")
	_, stderr, code := runDelta(t, nil, "stop", "--run-id", "stubborn", "-w", ws, "--timeout", "200ms")
	if code != 1 || !strings.Contains(stderr, "did not stop within 200ms") || !strings.Contains(stderr, "--force") {
		t.Fatalf("stop without --force: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runDelta(t, nil, "stop", "--run-id", "stubborn", "-w", ws, "--timeout", "200ms", "--force")
	if code != 0 {
		t.Fatalf("stop --force exit %d\n%s", code, stderr)
	}
	var res stopResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Status != "INTERRUPTED" || res.Signal != "SIGKILL" {
		t.Errorf("stop --force printed %q, want INTERRUPTED after SIGKILL", stdout)
	}
	if code := exitCode(cmd.Wait()); code != -1 {
		t.Errorf("run exit %d, want death by SIGKILL", code)
	}
	waitFor(t, "the tool to be gone", func() bool { return processGone(toolPID) })
	m, err := runs.ReadMetadata(filepath.Join(ws, ".delta", "stubborn"))
	if err != nil || m.Status != runs.Interrupted {
		t.Errorf("metadata after SIGKILL: %+v, %v", m, err)
	}
}

// TestStopRefusesRecycledPID: a RUNNING run whose recorded pid now
// belongs to another process is not running; that process gets no signal.
func TestStopRefusesRecycledPID(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\n", map[string]string{"script.yaml": "turns:\n  - content: done\n"})
	ws := t.TempDir()
	if _, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "old"); code != 0 {
		t.Fatalf("run exit %d\n%s", code, stderr)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	runDir := filepath.Join(ws, ".delta", "old")
	m, err := runs.ReadMetadata(runDir)
	if err != nil {
		t.Fatal(err)
	}
	m.Status, m.PID, m.ProcessStartTicks = runs.Running, other.Process.Pid, 1 // started long before sleep
	if err := runs.WriteMetadata(runDir, m); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runDelta(t, nil, "stop", "--run-id", "old", "-w", ws)
	if code != exitNotRunning || !strings.Contains(stderr, "is gone") {
		t.Errorf("stop with a recycled pid: exit %d, want %d\n%s", code, exitNotRunning, stderr)
	}
	if processGone(other.Process.Pid) {
		t.Error("the process that took over the pid was signalled")
	}
}
