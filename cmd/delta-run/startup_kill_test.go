package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/runs"
)

// TestKillAtStartup kills delta-run (SIGKILL or SIGINT, alternately) at
// random moments of its first milliseconds, when the run directory is being
// created, many times. After every kill the run id is either absent (and
// can be used again) or a run that continue takes to COMPLETED; a SIGINT
// once the run exists ends it with exit 130, never by the signal itself;
// and list-runs shows exactly the runs on disk.
func TestKillAtStartup(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: hello\n    exec: \"echo hello\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: hello\n        args: {}\n  - content: done\n"})
	ws := t.TempDir()
	for i := range rounds {
		id := fmt.Sprintf("k%03d", i)
		sig := syscall.SIGKILL
		if i%2 == 1 {
			sig = syscall.SIGINT
		}
		cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", id, "-y")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
		_ = cmd.Process.Signal(sig)
		err := cmd.Wait()
		runDir := filepath.Join(ws, runs.ControlDir, id)
		_, statErr := os.Stat(runDir)
		exists := statErr == nil
		if sig == syscall.SIGINT && exists {
			var ee *exec.ExitError
			switch {
			case err == nil: // finished before the signal
			case errors.As(err, &ee) && ee.ExitCode() == 130:
			case completed(runDir):
				// The signal came after the run had ended, as the
				// process exited.
			default:
				t.Errorf("round %d: SIGINT after the run existed ended delta-run with %v, want exit 130\n%s", i, err, errb.String())
			}
		}
		if !exists {
			// The id is free: a new run with it completes.
			if _, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", id, "-y"); code != 0 {
				t.Fatalf("round %d: the id of a run killed before it existed cannot be used again: exit %d\n%s", i, code, stderr)
			}
			continue
		}
		m, err := runs.ReadMetadata(runDir)
		if err != nil {
			t.Fatalf("round %d: the run exists without readable metadata: %v", i, err)
		}
		if m.Status != runs.Completed {
			before, _ := os.ReadFile(filepath.Join(runDir, runs.JournalFile))
			if _, stderr, code := runDelta(t, nil, "continue", "--run-id", id, "-w", ws); code != 0 {
				t.Fatalf("round %d: continue of a run killed at start-up (status %s) = exit %d\n%s\njournal before:\n%s", i, m.Status, code, stderr, before)
			}
		}
	}
	out, stderr, code := runDelta(t, nil, "list-runs", "-w", ws, "--format", "raw")
	if code != 0 {
		t.Fatalf("list-runs = %d\n%s", code, stderr)
	}
	entries, err := os.ReadDir(filepath.Join(ws, runs.ControlDir))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			onDisk = append(onDisk, e.Name())
		}
	}
	if listed := strings.Fields(out); len(listed) != len(onDisk) || len(onDisk) != rounds {
		t.Errorf("list-runs lists %d runs, %d on disk, want %d of each", len(listed), len(onDisk), rounds)
	}
	for _, id := range strings.Fields(out) {
		m, err := runs.ReadMetadata(filepath.Join(ws, runs.ControlDir, id))
		if err != nil || m.Status != runs.Completed {
			t.Errorf("run %s: %+v, %v; want COMPLETED", id, m, err)
		}
	}
}

// completed reports whether the run in runDir ended COMPLETED.
func completed(runDir string) bool {
	m, err := runs.ReadMetadata(runDir)
	return err == nil && m.Status == runs.Completed
}
