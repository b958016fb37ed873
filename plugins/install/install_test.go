package install_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
		Tools: []string{"read_file", "write_file", "edit_file", "apply_patch", "grep", "glob"}}
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
