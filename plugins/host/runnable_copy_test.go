package host

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The private copy (macOS's way of running a verified plugin) executes the
// bytes it was given, not whatever is at the original path afterwards, and
// leaves nothing behind once discarded.
func TestPrivateCopyRunsWhatWasCopied(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "plugin")
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho checked\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := newPrivateCopy(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(c, f); err != nil {
		t.Fatal(err)
	}
	exe, err := c.path()
	if err != nil {
		t.Fatal(err)
	}
	// A swap after the check must not change what runs.
	if err := os.WriteFile(src, []byte("#!/bin/sh\necho swapped\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("running the copy: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "checked" {
		t.Errorf("the copy printed %q, want %q", got, "checked")
	}
	if fi, err := os.Stat(filepath.Dir(exe)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("copy's directory: %v, mode %v; want a 0700 directory", err, fi.Mode().Perm())
	}
	c.discard()
	if _, err := os.Stat(filepath.Dir(exe)); !os.IsNotExist(err) {
		t.Errorf("after discard the copy's directory still exists (%v)", err)
	}
}
