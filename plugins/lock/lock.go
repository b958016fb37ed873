// Package lock reads and writes the plugin lock file, plugins.lock.json in
// the plugin directory: for every installed plugin its source, version,
// tools and the sha256 of its binary. The host loads a plugin only when its
// binary still has the locked checksum.
package lock

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/deltakit/delta/lib/atomicfile"
)

// FileName is the lock file's name inside the plugin directory.
const FileName = "plugins.lock.json"

// BinaryPrefix starts every plugin binary's name, in the plugin directory
// and on PATH: plugin "coding" is the binary delta-plugin-coding.
const BinaryPrefix = "delta-plugin-"

// formatVersion is the lock file format's version.
const formatVersion = 1

// Entry is one installed plugin.
type Entry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Source is what was installed: an absolute binary path or module@version.
	Source string `json:"source"`
	// Path is the installed binary.
	Path   string   `json:"path"`
	SHA256 string   `json:"sha256"`
	Tools  []string `json:"tools"`
	Hooks  bool     `json:"hooks,omitempty"`
}

// File is the whole lock file.
type File struct {
	Version int              `json:"version"`
	Plugins map[string]Entry `json:"plugins"`
}

// Dir is the plugin directory: $DELTA_PLUGIN_DIR, else ~/.delta/plugins.
func Dir() (string, error) {
	if d := os.Getenv("DELTA_PLUGIN_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the plugin directory: %w (set DELTA_PLUGIN_DIR)", err)
	}
	return filepath.Join(home, ".delta", "plugins"), nil
}

// Read loads dir's lock file; a missing file is an empty lock.
func Read(dir string) (*File, error) {
	f := &File{Version: formatVersion, Plugins: map[string]Entry{}}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plugin lock file: %w", err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("parse plugin lock file %q: %w", filepath.Join(dir, FileName), err)
	}
	if f.Plugins == nil {
		f.Plugins = map[string]Entry{}
	}
	return f, nil
}

// Write stores f as dir's lock file atomically (temp file, fsync, rename),
// so a crash never leaves a half-written lock.
func Write(dir string, f *File) error {
	f.Version = formatVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plugin lock file: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, FileName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write plugin lock file: %w", err)
	}
	return nil
}

// Names returns the locked plugin names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Plugins))
	for n := range f.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SHA256File returns the hex sha256 of the file at path.
func SHA256File(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("checksum %q: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Checksum status of an installed plugin's binary.
const (
	StatusOK       = "ok"
	StatusMismatch = "MISMATCH"
	StatusMissing  = "missing"
)

// Status compares e's binary with its locked checksum.
func (e Entry) Status() string {
	sum, err := SHA256File(e.Path)
	switch {
	case err != nil:
		return StatusMissing
	case sum != e.SHA256:
		return StatusMismatch
	}
	return StatusOK
}
