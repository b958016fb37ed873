// Package atomicfile replaces files atomically: readers see the old
// content or the new, never a mix, even across a crash. Delta keeps all
// its state in files (run metadata, session metadata, holder records), so
// every state file is written this one way.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file next to path, with permissions
// perm, syncs it, renames it over path and syncs the directory, so that
// the new content survives a crash once Write returns. The temporary file
// is removed on failure.
func Write(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := fill(f, data, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// fill writes, chmods, syncs and closes the temporary file f.
func fill(f *os.File, data []byte, perm os.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
