//go:build !windows

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// held reports whether another descriptor holds a lock on path.
func held(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil && !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatal(err)
	}
	return err != nil
}

// A lock is held until its file is closed, and a second Lock of one
// process waits for that.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	first, err := Lock(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if !held(t, path) {
		t.Fatal("after Lock, the file is not locked")
	}
	order := make(chan string, 2)
	locked := make(chan struct{})
	go func() {
		defer close(locked)
		second, err := Lock(path, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		order <- "second"
		second.Close()
	}()
	order <- "first released"
	first.Close()
	<-locked
	if a, b := <-order, <-order; a != "first released" || b != "second" {
		t.Errorf("order = %q, %q; want the second lock after the first's release", a, b)
	}
	if held(t, path) {
		t.Error("after Close, the file is still locked")
	}
}

func TestLockError(t *testing.T) {
	if _, err := Lock(filepath.Join(t.TempDir(), "no", "dir", "x.lock"), 0o644); err == nil {
		t.Error("Lock in a missing directory: no error")
	}
}
