// Package install puts plugins into the plugin directory and keeps its
// lock file: `delta plugin install` copies a binary or builds a Go module
// there, starts it once to ask for its tools and version, and records its
// sha256; list, remove and verify read the lock back.
package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/lock"
)

// ErrBadName is returned for a plugin name that is not a simple word.
var ErrBadName = errors.New("invalid plugin name")

// ErrNotInstalled is returned by Remove for an unknown plugin.
var ErrNotInstalled = errors.New("plugin not installed")

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`) })

// Options configure Install.
type Options struct {
	// Dir is the plugin directory (created if missing).
	Dir string
	// Name overrides the name taken from the binary (delta-plugin-NAME → NAME).
	Name string
	// Stderr receives go install's and the plugin's stderr.
	Stderr io.Writer
}

// Install installs src — a path to a plugin binary, or a Go module
// path@version — and returns its lock entry. The plugin is started once to
// list its tools; one that fails to start is not installed.
func Install(ctx context.Context, src string, o Options) (lock.Entry, error) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return lock.Entry{}, fmt.Errorf("create plugin directory: %w", err)
	}
	staged, source, version, err := stage(ctx, src, o)
	if err != nil {
		return lock.Entry{}, err
	}
	defer os.Remove(staged)
	name := o.Name
	if name == "" {
		name = strings.TrimPrefix(filepath.Base(staged), lock.BinaryPrefix)
		name = strings.TrimSuffix(name, ".staged")
	}
	if !nameRE().MatchString(name) {
		return lock.Entry{}, fmt.Errorf("%w %q: use lowercase letters, digits, '.', '_' and '-' (--name NAME)", ErrBadName, name)
	}
	sum, err := lock.SHA256File(staged)
	if err != nil {
		return lock.Entry{}, err
	}
	tools, reported, err := probe(ctx, host.Binary{Name: name, Path: staged, SHA256: sum, Locked: true}, o.Stderr)
	if err != nil {
		return lock.Entry{}, err
	}
	if version == "" {
		version = reported
	}
	if version == "" {
		version = "local"
	}
	final := filepath.Join(o.Dir, lock.BinaryPrefix+name)
	if err := os.Rename(staged, final); err != nil {
		return lock.Entry{}, fmt.Errorf("install plugin binary: %w", err)
	}
	lk, err := lock.Read(o.Dir)
	if err != nil {
		return lock.Entry{}, err
	}
	e := lock.Entry{Name: name, Version: version, Source: source, Path: final, SHA256: sum, Tools: tools}
	lk.Plugins[name] = e
	if err := lock.Write(o.Dir, lk); err != nil {
		return lock.Entry{}, err
	}
	return e, nil
}

// stage puts src's binary into the plugin directory under a temporary
// name, returning it, the recorded source, and the module version ("" for
// a local binary).
func stage(ctx context.Context, src string, o Options) (path, source, version string, err error) {
	if st, statErr := os.Stat(src); statErr == nil {
		if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
			return "", "", "", fmt.Errorf("%s is not an executable plugin binary", src)
		}
		abs, _ := filepath.Abs(src)
		staged := filepath.Join(o.Dir, filepath.Base(abs)+".staged")
		if err := copyFile(abs, staged); err != nil {
			return "", "", "", err
		}
		return staged, abs, "", nil
	}
	mod, ver, ok := strings.Cut(src, "@")
	if !ok || mod == "" || ver == "" {
		return "", "", "", fmt.Errorf("%s: no such file, and not a Go module path@version", src)
	}
	gobin, err := os.MkdirTemp(o.Dir, ".build-")
	if err != nil {
		return "", "", "", err
	}
	defer os.RemoveAll(gobin)
	cmd := exec.CommandContext(ctx, "go", "install", src)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	cmd.Stdout, cmd.Stderr = o.Stderr, o.Stderr
	if err := cmd.Run(); err != nil {
		return "", "", "", fmt.Errorf("go install %s: %w", src, err)
	}
	entries, err := os.ReadDir(gobin)
	if err != nil || len(entries) != 1 {
		return "", "", "", fmt.Errorf("go install %s: expected one binary in GOBIN, found %d", src, len(entries))
	}
	staged := filepath.Join(o.Dir, entries[0].Name()+".staged")
	if err := os.Rename(filepath.Join(gobin, entries[0].Name()), staged); err != nil {
		return "", "", "", err
	}
	_ = mod
	return staged, src, ver, nil
}

// probe starts the plugin once to list its tools and version.
func probe(ctx context.Context, bin host.Binary, stderr io.Writer) ([]string, string, error) {
	c, err := host.NewClient(bin, nil, stderr)
	if err != nil {
		return nil, "", err
	}
	defer c.Stop()
	specs, version, err := c.Tools(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("%s does not start as a Delta plugin: %w", bin.Path, err)
	}
	names := []string{}
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names, version, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return out.Close()
}

// Remove deletes plugin name's binary and lock entry.
func Remove(dir, name string) error {
	lk, err := lock.Read(dir)
	if err != nil {
		return err
	}
	e, ok := lk.Plugins[name]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotInstalled, name)
	}
	if err := os.Remove(e.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", e.Path, err)
	}
	delete(lk.Plugins, name)
	return lock.Write(dir, lk)
}

// Status is one installed plugin with its checksum status.
type Status struct {
	lock.Entry
	Status string `json:"status"` // lock.StatusOK, StatusMismatch or StatusMissing
}

// List returns every installed plugin, by name, with its checksum status.
func List(dir string) ([]Status, error) {
	lk, err := lock.Read(dir)
	if err != nil {
		return nil, err
	}
	out := []Status{}
	for _, n := range lk.Names() {
		e := lk.Plugins[n]
		out = append(out, Status{Entry: e, Status: e.Status()})
	}
	return out, nil
}
