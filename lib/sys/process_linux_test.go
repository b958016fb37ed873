package sys

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startSleep starts a child that lives until it is killed.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestProcessSignalAndWait(t *testing.T) {
	cmd := startSleep(t)
	p, err := OpenProcess(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if ended, err := p.Wait(0); ended || err != nil {
		t.Fatalf("Wait(0) on a live process = %v, %v; want false", ended, err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// No time limit that a loaded machine could miss: the process was
	// signalled, so it ends.
	if ended, err := p.Wait(time.Hour); !ended || err != nil {
		t.Fatalf("Wait after SIGTERM = %v, %v; want true", ended, err)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGTERM {
		t.Errorf("child ended with %v, want SIGTERM", err)
	}
	// Reaped: the handle still names the dead process, never a new one.
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("Signal after the process was reaped = %v, want ESRCH", err)
	}
}

func TestOpenProcessGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenProcess(cmd.Process.Pid); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("OpenProcess of a reaped child = %v, want ESRCH", err)
	}
}

func TestStatSelf(t *testing.T) {
	p, err := Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := unix.Getsid(0)
	if p.PPID != os.Getppid() || p.PGID != syscall.Getpgrp() || p.SID != sid || p.Start == 0 || p.Zombie {
		t.Errorf("Stat(self) = %+v, want ppid %d, pgid %d, sid %d, a start, alive", p, os.Getppid(), syscall.Getpgrp(), sid)
	}
	start, err := StartTime(p)
	if err != nil || start.After(time.Now()) || start.Year() < 2000 {
		t.Errorf("StartTime(self) = %v, %v; want a time in the past", start, err)
	}
	if Name(os.Getpid()) == "" {
		t.Error("Name(self) is empty")
	}
}

func TestStatGoneIsNotExist(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := Stat(cmd.Process.Pid); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat of a reaped child = %v, want ErrNotExist", err)
	}
}

func TestSelfChildrenAndSession(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	found := false
	for _, p := range SelfChildren() {
		found = found || p.PID == pid
	}
	if !found {
		t.Errorf("SelfChildren() does not list child %d", pid)
	}
	sid, _ := unix.Getsid(0)
	found = false
	for _, p := range SessionProcs(sid) {
		found = found || p.PID == pid
	}
	if !found {
		t.Errorf("SessionProcs(%d) does not list child %d of that session", sid, pid)
	}
}
