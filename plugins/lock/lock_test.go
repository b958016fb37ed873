package lock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	f, err := Read(dir)
	if err != nil || len(f.Plugins) != 0 {
		t.Fatalf("Read(no lock file) = %+v, %v; want an empty lock", f, err)
	}
	bin := filepath.Join(dir, "delta-plugin-x")
	os.WriteFile(bin, []byte("binary"), 0o755)
	sum, err := SHA256File(bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := "9a3a45d01531a20e89ac6ae10b0b0beb0492acd7216a368aa062d1a5fecaf9cd"; sum != want {
		t.Errorf("SHA256File() = %s, want %s", sum, want)
	}
	f.Plugins["x"] = Entry{Name: "x", Version: "1", Source: "/src/x", Path: bin, SHA256: sum, Tools: []string{"a"}}
	f.Plugins["b"] = Entry{Name: "b", Path: filepath.Join(dir, "gone"), SHA256: sum}
	if err := Write(dir, f); err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, got); diff != "" {
		t.Errorf("Read(Write(f)) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "x"}, got.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("Write left temporary files: %v", entries)
	}
	if st, _ := os.Stat(filepath.Join(dir, FileName)); st.Mode().Perm() != 0o644 {
		t.Errorf("lock file mode = %v, want 0644", st.Mode().Perm())
	}
	if s := got.Plugins["x"].Status(); s != StatusOK {
		t.Errorf("Status() = %s, want ok", s)
	}
	if s := got.Plugins["b"].Status(); s != StatusMissing {
		t.Errorf("Status(missing binary) = %s, want missing", s)
	}
	os.WriteFile(bin, []byte("binary!"), 0o755)
	if s := got.Plugins["x"].Status(); s != StatusMismatch {
		t.Errorf("Status(changed binary) = %s, want MISMATCH", s)
	}
}

func TestReadCorrupt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "parse plugin lock file") {
		t.Errorf("Read(corrupt) error = %v", err)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("DELTA_PLUGIN_DIR", "rel/plugins")
	d, err := Dir()
	if err != nil || !filepath.IsAbs(d) || !strings.HasSuffix(d, "rel/plugins") {
		t.Errorf("Dir() = %q, %v; want the absolute $DELTA_PLUGIN_DIR", d, err)
	}
	t.Setenv("DELTA_PLUGIN_DIR", "")
	t.Setenv("HOME", "/home/u")
	if d, err := Dir(); err != nil || d != "/home/u/.delta/plugins" {
		t.Errorf("Dir() = %q, %v; want ~/.delta/plugins", d, err)
	}
}
