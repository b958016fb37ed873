package sys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
	if err := os.Mkdir(from, 0o755); err != nil {
		t.Fatal(err)
	}
	// An empty directory at the target: rename(2) would replace it.
	if err := os.Mkdir(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RenameNoReplace(from, to); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("RenameNoReplace onto an empty directory = %v, want fs.ErrExist", err)
	}
	if err := os.Remove(to); err != nil {
		t.Fatal(err)
	}
	if err := RenameNoReplace(from, to); err != nil {
		t.Fatalf("RenameNoReplace onto a free name = %v", err)
	}
	if _, err := os.Stat(to); err != nil {
		t.Errorf("after RenameNoReplace: %v", err)
	}
}

func TestExchange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("new"), 0o600)
	os.WriteFile(b, []byte("old"), 0o600)
	err := Exchange(a, b)
	if errors.Is(err, ErrUnsupported) {
		t.Skipf("the file system of %s cannot exchange: %v", dir, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	gotA, _ := os.ReadFile(a)
	gotB, _ := os.ReadFile(b)
	if string(gotA) != "old" || string(gotB) != "new" {
		t.Errorf("after Exchange: a = %q, b = %q; want old, new", gotA, gotB)
	}
	if err := Exchange(a, filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Exchange with a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestUnsupportedKeepsErrno(t *testing.T) {
	err := renameError("rename", "a", "b", os.NewSyscallError("renameat2", syscall.EINVAL))
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, syscall.EINVAL) {
		t.Errorf("renameError(EINVAL) = %v, want both ErrUnsupported and EINVAL", err)
	}
	if err := renameError("rename", "a", "b", syscall.EEXIST); errors.Is(err, ErrUnsupported) || !errors.Is(err, fs.ErrExist) {
		t.Errorf("renameError(EEXIST) = %v, want fs.ErrExist only", err)
	}
}
