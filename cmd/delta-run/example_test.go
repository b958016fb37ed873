package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

// TestRunControlExample follows examples/run-control/README.md: steer a
// running run, queue a follow-up, stop it, continue it, read it back with
// log, and fork it.
func TestRunControlExample(t *testing.T) {
	agentDir, err := filepath.Abs("../../examples/run-control")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	run := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "--run-id", "demo", "-m", "Build the project")
	var errb bytes.Buffer
	run.Stderr = &errb
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Kill(); run.Wait() })
	waitFor(t, "the build to start", fileContains(filepath.Join(ws, ".delta", "demo", "journal.jsonl"), "ACTION_REQUEST"))

	for _, args := range [][]string{
		{"send", "--run-id", "demo", "-w", ws, "-m", "Use the release profile"},
		{"send", "--run-id", "demo", "-w", ws, "--follow-up", "-m", "Now summarise"},
		{"stop", "--run-id", "demo", "-w", ws},
	} {
		if _, stderr, code := runDelta(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
		}
	}
	if code := exitCode(run.Wait()); code != 130 {
		t.Fatalf("run exit %d, want 130\n%s", code, errb.String())
	}
	stdout, stderr, code := runDelta(t, nil, "continue", "--run-id", "demo", "-w", ws, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "Summary: one build, no errors." {
		t.Fatalf("continue: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	log, _, code := runDelta(t, nil, "log", "--run-id", "demo", "-w", ws)
	for _, want := range []string{"user (steer): Use the release profile", "user (follow_up): Now summarise", "■ COMPLETED after iteration 3"} {
		if code != 0 || !strings.Contains(log, want) {
			t.Errorf("log (exit %d) lacks %q:\n%s", code, want, log)
		}
	}
	if stdout, stderr, code := runDelta(t, nil, "fork", "--run-id", "demo", "-w", ws, "--at", "2"); code != 0 || !strings.Contains(stdout, `"run_id": "demo-fork1"`) {
		t.Errorf("fork: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}

// TestSubagentsExample follows examples/subagents/README.md: the editor
// starts two poets at once, waits for both, and answers; the poets are
// runs of their own, scoped to poems/, shown under the editor by list-runs.
func TestSubagentsExample(t *testing.T) {
	agentDir, err := filepath.Abs("../../examples/subagents")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	stdout, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "--run-id", "anthology", "-m", "Make a small anthology about the sea", "--format", "raw")
	if code != 0 || !strings.Contains(stdout, "The anthology is ready") {
		t.Fatalf("run: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	for file, want := range map[string]string{"poems/haiku.txt": "Grey waves fold and break", "poems/limerick.txt": "A sailor who sang to the sea"} {
		if data, err := os.ReadFile(filepath.Join(ws, file)); err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s = %q (%v), want the poem", file, data, err)
		}
	}
	list, _, code := runDelta(t, nil, "list-runs", "-w", ws)
	for _, want := range []string{"\n  anthology.sub1 ", "\n  anthology.sub2 "} {
		if code != 0 || !strings.Contains(list, want) || !strings.HasPrefix(list, "anthology ") {
			t.Errorf("list-runs (exit %d) does not show %q under anthology:\n%s", code, want, list)
		}
	}
	data, err := os.ReadFile(filepath.Join(ws, ".delta", "anthology.sub1", "metadata.json"))
	if err != nil || !strings.Contains(string(data), `"dir": "poems"`) || !strings.Contains(string(data), `"parent_run_id": "anthology"`) {
		t.Errorf("child metadata = %s (%v), want parent_run_id anthology and dir poems", data, err)
	}
}

// TestCodingAgentExample follows examples/coding-agent/README.md: install
// the coding plugin, copy the workspace template, run the agent, and find
// greet.sh fixed, bye.sh added and check.sh edited (it was read first).
func TestCodingAgentExample(t *testing.T) {
	agentDir, err := filepath.Abs("../../examples/coding-agent")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"DELTA_PLUGIN_DIR=" + t.TempDir()}
	install := exec.Command(filepath.Join(clitest.BinDir(t), "delta-plugin"), "install", filepath.Join(clitest.BinDir(t), "delta-plugin-coding"))
	install.Env = append(os.Environ(), env...)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("delta plugin install: %v\n%s", err, out)
	}
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(agentDir, "workspace-template"))); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "Fix the greeting", "-y", "--format", "raw")
	if code != 0 {
		t.Fatalf("run: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	for file, want := range map[string]string{"greet.sh": `echo "Hello, $1!"`, "bye.sh": "Goodbye", "check.sh": "greet Delta"} {
		if data, err := os.ReadFile(filepath.Join(ws, file)); err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s = %q (%v), want it to contain %q", file, data, err, want)
		}
	}
}
