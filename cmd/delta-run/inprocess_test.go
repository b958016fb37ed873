package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// inProcess runs delta-run's command line in this process, with its own
// buffers for stdout and stderr, as main does with the process's streams.
func inProcess(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runCLI(args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// TestCommandsInProcess drives init, run, list-runs and continue through
// cli.Run: every stream a command uses is the Stdio it was given.
func TestCommandsInProcess(t *testing.T) {
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "hello")
	t.Setenv("DELTA_API_KEY", "")
	t.Setenv("DELTA_MODEL", "")

	code, out, errOut := inProcess(t, "", "init", agentDir, "-t", "hello-world")
	if code != 0 || out != "" || !strings.Contains(errOut, "Created agent") {
		t.Fatalf("init: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	ws := filepath.Join(dir, "ws")
	code, out, errOut = inProcess(t, "", "run", "--agent", agentDir, "-w", ws, "-m", "Say hello", "--run-id", "r1", "--format", "json")
	if code != 0 {
		t.Fatalf("run: exit %d, stderr:\n%s", code, errOut)
	}
	var res struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.RunID != "r1" || res.Status != "COMPLETED" {
		t.Fatalf("run: stdout %q is not a COMPLETED RunResult of r1 (%v)", out, err)
	}
	if !strings.Contains(errOut, "iteration 1") {
		t.Errorf("run: the live stream did not reach the given stderr:\n%s", errOut)
	}

	code, out, _ = inProcess(t, "", "list-runs", "-w", ws, "--first")
	if code != 0 || strings.TrimSpace(out) != "r1" {
		t.Errorf("list-runs --first: exit %d, stdout %q, want r1", code, out)
	}

	code, out, errOut = inProcess(t, "", "continue", "--run-id", "r1", "-w", ws)
	if code != runs.ExitConfig || out != "" || !strings.Contains(errOut, "-m") {
		t.Errorf("continue of a COMPLETED run without -m: exit %d (want %d), stdout %q, stderr %q", code, runs.ExitConfig, out, errOut)
	}
}
