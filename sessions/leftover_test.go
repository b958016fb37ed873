package sessions

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
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

// lockFile opens a fresh session lock file in a temp directory.
func lockFile(t *testing.T) *os.File {
	t.Helper()
	f, err := LockFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func writeRunning(t *testing.T, lock *os.File, r running) {
	t.Helper()
	data, _ := json.Marshal(r)
	writeRecord(lock, data)
}

// record returns the lock file's record, spaces trimmed.
func record(t *testing.T, lock *os.File) string {
	t.Helper()
	data, err := os.ReadFile(lock.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSpace(data))
}

func TestKillLeftover(t *testing.T) {
	lock := lockFile(t)
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	recordRunning(lock, pid)
	if record(t, lock) == "" {
		t.Fatal("no record of the running group in the lock file")
	}
	var notes bytes.Buffer
	killLeftover(lock, &notes)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the leftover sleep was not killed")
	}
	if notes.Len() == 0 {
		t.Error("no warning about the killed leftover")
	}
	if r := record(t, lock); r != "" {
		t.Errorf("record still there: %q", r)
	}
}

// TestKillLeftoverReusedID checks a group whose leader started at another
// time (the id was reused) is left alone.
func TestKillLeftoverReusedID(t *testing.T) {
	lock := lockFile(t)
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	if startTime(pid) == 0 {
		t.Fatalf("startTime(%d) = 0 for a live process", pid)
	}
	writeRunning(t, lock, running{PGID: pid, Start: startTime(pid) + 1})
	var notes bytes.Buffer
	killLeftover(lock, &notes)
	if !living(pid) {
		t.Fatal("a process group with another start time was killed")
	}
	if notes.Len() != 0 {
		t.Errorf("notes = %q, want none", notes.String())
	}
}
