package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/plugins/lock"
)

// Resolve finds the binary of ref and the checksum it must have, in
// discovery order: the explicit path of agent.yaml (which must match the
// locked checksum of the plugin's name), the plugin directory dir (locked),
// then delta-plugin-NAME on PATH (locked, or unlocked when ref.AllowPath).
// A binary that does not match its locked checksum is refused here, before
// anything runs; the go-plugin SecureConfig checks again at start.
func Resolve(ref agent.PluginRef, dir string, lk *lock.File) (Binary, error) {
	entry, locked := lk.Plugins[ref.Name]
	var path string
	switch {
	case ref.Path != "":
		path = ref.Path
	case locked && entry.Path != "":
		path = entry.Path
	default:
		inDir := filepath.Join(dir, lock.BinaryPrefix+ref.Name)
		if _, err := os.Stat(inDir); err == nil {
			path = inDir
		} else if p, err := exec.LookPath(lock.BinaryPrefix + ref.Name); err == nil {
			path = p
		}
	}
	if path == "" {
		return Binary{}, fmt.Errorf("plugin %q: no binary %s%s in %s or on PATH: %w",
			ref.Name, lock.BinaryPrefix, ref.Name, dir, ErrNotFound)
	}
	sum, err := lock.SHA256File(path)
	if err != nil {
		return Binary{}, fmt.Errorf("plugin %q: %w", ref.Name, err)
	}
	if locked {
		if sum != entry.SHA256 {
			return Binary{}, fmt.Errorf("plugin %q: binary %s has sha256 %s but the lock file says %s; refusing to run it: %w",
				ref.Name, path, sum, entry.SHA256, ErrChecksum)
		}
		return Binary{Name: ref.Name, Path: path, SHA256: entry.SHA256, Locked: true}, nil
	}
	if ref.Path == "" && ref.AllowPath && onPath(path, dir) {
		return Binary{Name: ref.Name, Path: path, SHA256: sum}, nil
	}
	return Binary{}, fmt.Errorf("plugin %q: %s is not in the lock file %s: %w",
		ref.Name, path, filepath.Join(dir, lock.FileName), ErrNotLocked)
}

// onPath reports whether path was found on PATH rather than in dir.
func onPath(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator)
}

// Hint says what to do about a Resolve or start error ("" when nothing
// useful can be said).
func Hint(err error) string {
	switch {
	case errors.Is(err, ErrChecksum):
		return "the binary changed since it was installed; reinstall it with `delta plugin install` if the change is yours"
	case errors.Is(err, ErrNotLocked):
		return "install it with `delta plugin install PATH`, or set allow_path: true for a delta-plugin-NAME on PATH"
	case errors.Is(err, ErrNotFound):
		return "install it with `delta plugin install PATH|MODULE@VERSION` (see delta-plugin(1))"
	}
	return ""
}
