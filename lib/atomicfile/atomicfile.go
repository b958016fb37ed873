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
	return wrap(path, write(path, data, perm, true))
}

// WriteNoSync is Write without the two fsyncs: readers and a crash of the
// writing process still see the old content or the new, but a power loss
// may lose the write. It is for state rewritten on every call of a hot
// path (a session's metadata on each exec), where a sync would cost more
// than the work itself.
func WriteNoSync(path string, data []byte, perm os.FileMode) error {
	return wrap(path, write(path, data, perm, false))
}

func wrap(path string, err error) error {
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := fill(f, data, perm, sync); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if !sync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// fill writes, chmods, syncs (when asked) and closes the temporary file f.
func fill(f *os.File, data []byte, perm os.FileMode, sync bool) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
