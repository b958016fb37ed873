package install_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/plugins/install"
	"github.com/deltakit/delta/plugins/lock"
)

var coding string // the built coding plugin

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "install-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmd := exec.Command("go", "build", "-o", dir+"/", "../coding/delta-plugin-coding")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	coding = filepath.Join(dir, "delta-plugin-coding")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestInstallListRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins")
	ctx := context.Background()
	e, err := install.Install(ctx, coding, install.Options{Dir: dir})
	if err != nil {
		t.Fatalf("Install() error = %v", err)
	}
	sum, _ := lock.SHA256File(coding)
	want := lock.Entry{Name: "coding", Version: "0.1.0", Source: coding, Path: filepath.Join(dir, "delta-plugin-coding"), SHA256: sum,
		Tools: []string{"read_file", "write_file", "edit_file", "apply_patch", "grep", "glob", "shell", "list_dir", "read_many_files"}}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("Install() entry (-want +got):\n%s", diff)
	}
	if _, err := install.Install(ctx, coding, install.Options{Dir: dir, Name: "code2"}); err != nil {
		t.Fatalf("Install(--name code2) error = %v", err)
	}
	lk, err := lock.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"code2", "coding"}, lk.Names()); diff != "" {
		t.Errorf("lock names (-want +got):\n%s", diff)
	}
	if err := install.Remove(dir, "code2"); err != nil {
		t.Fatalf("Remove() error = %v", err)
	}
	if err := install.Remove(dir, "code2"); !errors.Is(err, install.ErrNotInstalled) {
		t.Errorf("Remove(again) error = %v, want ErrNotInstalled", err)
	}
	os.WriteFile(e.Path, []byte("tampered"), 0o755)
	list, err := install.List(dir)
	if err != nil || len(list) != 1 || list[0].Status != lock.StatusMismatch {
		t.Errorf("List() after tampering = %+v, %v; want one MISMATCH", list, err)
	}
	assertOnly(t, dir, "delta-plugin-coding", lock.FileName)
}

func TestInstallRefusals(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := install.Install(ctx, coding, install.Options{Dir: dir, Name: "Bad Name"}); !errors.Is(err, install.ErrBadName) {
		t.Errorf("Install(bad name) error = %v, want ErrBadName", err)
	}
	if _, err := install.Install(ctx, "/bin/true", install.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "does not start as a Delta plugin") {
		t.Errorf("Install(/bin/true) error = %v", err)
	}
	assertOnly(t, dir)
}

// TestInstallModule builds a module with go install (from the module cache or
// the Go module proxy); it is not a plugin, so nothing is installed.
func TestInstallModule(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOFLAGS", "")
	_, err := install.Install(context.Background(), "golang.org/x/tools/cmd/stringer@v0.49.0", install.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "stringer.staged does not start as a Delta plugin") {
		t.Errorf("Install(module) error = %v, want the built binary refused at start", err)
	}
	assertOnly(t, dir)
}

// assertOnly checks dir holds exactly the named files (no staged or
// temporary leftovers).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	got := []string{}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if names == nil {
		names = []string{}
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("files in plugin directory (-want +got):\n%s", diff)
	}
}

// TestInstallNotAPluginWithChild: a program that is no plugin and leaves a
// background child holding its output fails to install promptly, without
// waiting for the child, and the child is killed with it.
func TestInstallNotAPluginWithChild(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notplugin")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := "#!/bin/sh\nsleep 1000 &\necho $! > " + pidFile + "\necho hello\n"
	if err := os.WriteFile(src, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := install.Install(context.Background(), src, install.Options{Dir: filepath.Join(t.TempDir(), "plugins"), Name: "np"})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Install of a program that is no plugin did not return: it waits for the child holding its output")
	}
	if err == nil || !strings.Contains(err.Error(), "does not start as a Delta plugin") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Install() error = %q, want one line saying it does not start as a Delta plugin", err)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid > 0 {
		deadline := time.Now().Add(30 * time.Second)
		for syscall.Kill(pid, 0) == nil && !zombie(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the program's child %d outlived the failed install", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// zombie reports whether pid has exited but not been reaped.
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(data), ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}
