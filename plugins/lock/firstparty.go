package lock

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/deltakit/delta/lib/atomicfile"
)

// ManifestName is the trust manifest of the first-party plugins that ship
// beside the Delta binaries: `make build` and `make install` write it into
// the directory they put delta-run and delta-plugin-coding in, in
// sha256sum's format ("HEX  delta-plugin-NAME" per line). A plugin it
// lists, found in that same directory with that checksum, runs without a
// `delta plugin install`: the files came from one build, so whoever could
// change the plugin could change delta-run as well. Third-party plugins are
// never in it and keep needing the lock file.
const ManifestName = "delta-plugins.sha256"

// FirstPartyBinaries are the first-party plugins, the binaries make build
// lists in the manifest (the Makefile's FIRST_PARTY_PLUGINS, which a test
// holds to this list and to the plugins under plugins/).
var FirstPartyBinaries = []string{"delta-plugin-coding", "delta-plugin-web"}

// manifestLine is one line of the manifest: a sha256 and a plugin binary's
// base name (sha256sum's "*" for binary mode accepted).
var manifestLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](` + BinaryPrefix + `[A-Za-z0-9][A-Za-z0-9._-]*)$`)

// FirstParty reads dir's manifest and returns its plugins as lock entries
// whose Path is in dir; none (and no error) when dir has no manifest.
func FirstParty(dir string) (map[string]Entry, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read first-party plugin manifest: %w", err)
	}
	entries := map[string]Entry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		m := manifestLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a line \"SHA256  %sNAME\"; rebuild with make build or make install", path, n, BinaryPrefix)
		}
		name := strings.TrimPrefix(m[2], BinaryPrefix)
		entries[name] = Entry{Name: name, Version: "first-party", Source: path, Path: filepath.Join(dir, m[2]), SHA256: m[1]}
	}
	return entries, nil
}

// WriteManifest writes dir's manifest for the plugin binaries names (base
// names, delta-plugin-NAME) found in dir, with their current checksums.
func WriteManifest(dir string, names ...string) error {
	var b strings.Builder
	for _, n := range names {
		if !strings.HasPrefix(n, BinaryPrefix) || filepath.Base(n) != n {
			return fmt.Errorf("manifest entry %q: want a binary name %sNAME", n, BinaryPrefix)
		}
		sum, err := SHA256File(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("manifest entry %q: %w", n, err)
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return atomicfile.Write(filepath.Join(dir, ManifestName), []byte(b.String()), 0o644)
}

// ReadTrusted is Read with the first-party plugins of the running
// program's directory added: a name the lock file has keeps its locked
// entry, so what a user installed always wins.
func ReadTrusted(dir string) (*File, error) {
	f, err := Read(dir)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return f, nil // no directory to trust: the lock alone, as before
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	first, err := FirstParty(filepath.Dir(exe))
	if err != nil {
		return nil, err
	}
	for name, e := range first {
		if _, locked := f.Plugins[name]; !locked {
			f.Plugins[name] = e
		}
	}
	return f, nil
}
