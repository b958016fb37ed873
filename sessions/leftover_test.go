package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// startSleep starts sleep in its own process group, ended by cleanup.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func writeRunning(t *testing.T, dir string, r running) {
	t.Helper()
	data, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(dir, runningFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestKillLeftover(t *testing.T) {
	dir := t.TempDir()
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	recordRunning(dir, pid)
	var notes bytes.Buffer
	killLeftover(dir, &notes)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the leftover sleep was not killed")
	}
	if notes.Len() == 0 {
		t.Error("no warning about the killed leftover")
	}
	if _, err := os.Stat(filepath.Join(dir, runningFile)); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", runningFile, err)
	}
}

// TestKillLeftoverReusedID checks a group whose leader started at another
// time (the id was reused) is left alone.
func TestKillLeftoverReusedID(t *testing.T) {
	dir := t.TempDir()
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if startTime(pid) == 0 {
		t.Fatalf("startTime(%d) = 0 for a live process", pid)
	}
	writeRunning(t, dir, running{PGID: pid, Start: startTime(pid) + 1})
	var notes bytes.Buffer
	killLeftover(dir, &notes)
	if !living(pid) {
		t.Fatal("a process group with another start time was killed")
	}
	if notes.Len() != 0 {
		t.Errorf("notes = %q, want none", notes.String())
	}
}
