package execute

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A program named by its path that cannot run says what to do about it.
func TestLookPathMessages(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{script, "not executable: chmod +x " + script},
		{filepath.Join(dir, "missing.sh"), "no such file: " + filepath.Join(dir, "missing.sh")},
		{dir + "/", dir + " is a directory, not a program"},
	} {
		_, err := lookPath(tc.name, "", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("lookPath(%q) = %v, want %q matching exec.ErrNotFound", tc.name, err, tc.want)
		}
	}
}
