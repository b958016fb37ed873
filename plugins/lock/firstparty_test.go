package lock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestManifestRoundTrip: WriteManifest's file is what FirstParty reads,
// in the format sha256sum writes (what make uses), entries in dir.
func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "delta-plugin-coding"), []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(dir, "delta-plugin-coding"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	// sha256("binary"), as `sha256sum delta-plugin-coding` prints it.
	const sum = "9a3a45d01531a20e89ac6ae10b0b0beb0492acd7216a368aa062d1a5fecaf9cd"
	if want := sum + "  delta-plugin-coding\n"; string(data) != want {
		t.Fatalf("manifest = %q, want %q", data, want)
	}
	got, err := FirstParty(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Entry{"coding": {Name: "coding", Version: "first-party", Source: filepath.Join(dir, ManifestName),
		Path: filepath.Join(dir, "delta-plugin-coding"), SHA256: sum}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FirstParty (-want +got):\n%s", d)
	}
}

// TestManifestRefusesOtherLines: a line naming a path or no plugin binary
// is an error, never a trusted entry.
func TestManifestRefusesOtherLines(t *testing.T) {
	for name, line := range map[string]string{
		"path":       strings.Repeat("a", 64) + "  ../delta-plugin-x",
		"not plugin": strings.Repeat("a", 64) + "  delta-run",
		"short sum":  "abc  delta-plugin-x",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := FirstParty(dir); err == nil {
				t.Errorf("FirstParty(%q) = %v, want an error", line, got)
			}
		})
	}
	if got, err := FirstParty(t.TempDir()); err != nil || got != nil {
		t.Errorf("FirstParty(no manifest) = %v, %v; want nothing", got, err)
	}
}

// TestFirstPartyBinariesAreTheTree: FirstPartyBinaries, the Makefile's
// FIRST_PARTY_PLUGINS and the plugin binaries under plugins/ name the
// same plugins, so a new first-party plugin cannot be left out of the
// manifest that make build writes (and the tests write as it does).
func TestFirstPartyBinariesAreTheTree(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var inMake []string
	for _, line := range strings.Split(string(mk), "\n") {
		if v, ok := strings.CutPrefix(line, "FIRST_PARTY_PLUGINS := "); ok {
			inMake = strings.Fields(v)
		}
	}
	mains, _ := filepath.Glob("../*/delta-plugin-*/main.go")
	var inTree []string
	for _, m := range mains {
		inTree = append(inTree, filepath.Base(filepath.Dir(m)))
	}
	if d := cmp.Diff(FirstPartyBinaries, inMake); d != "" {
		t.Errorf("the Makefile's FIRST_PARTY_PLUGINS differs from FirstPartyBinaries (-list +Makefile):\n%s", d)
	}
	if d := cmp.Diff(FirstPartyBinaries, inTree); d != "" {
		t.Errorf("the plugin binaries under plugins/ differ from FirstPartyBinaries (-list +tree):\n%s", d)
	}
}
