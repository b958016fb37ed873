package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"Write": Write, "WriteNoSync": WriteNoSync} {
		t.Run(name, func(t *testing.T) { testWrite(t, write) })
	}
}

func testWrite(t *testing.T, write func(string, []byte, os.FileMode) error) {
	tests := []struct {
		name string
		old  string // existing content; "" for none
		data string
		perm os.FileMode
	}{
		{"new file", "", "hello\n", 0o644},
		{"replace", "old content that is longer\n", "new\n", 0o600},
		{"empty", "x", "", 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := write(path, []byte(tt.data), tt.perm); err != nil {
				t.Fatalf("Write(%q) = %v, want nil", path, err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.data, string(got)); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.perm)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only state.json (temporary file left behind?)", len(entries))
			}
		})
	}
}

func TestWriteMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "state.json")
	err := Write(path, []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Write(%q) = %v, want an error wrapping fs.ErrNotExist", path, err)
	}
}

func TestWriteOverDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Fatalf("Write(%q) over a directory = nil, want an error", path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed rename, want 1 (temporary file left behind)", len(entries))
	}
}

// BenchmarkWrite measures one durable replacement of a small state file
// (two fsyncs: the file and its directory).
func BenchmarkWrite(b *testing.B) { benchmarkWrite(b, Write) }

// BenchmarkWriteNoSync measures the same replacement without the fsyncs.
func BenchmarkWriteNoSync(b *testing.B) { benchmarkWrite(b, WriteNoSync) }

func benchmarkWrite(b *testing.B, write func(string, []byte, os.FileMode) error) {
	path := filepath.Join(b.TempDir(), "metadata.json")
	data := []byte(`{"session_id": "sess_0123456789ab", "status": "active"}` + "\n")
	for b.Loop() {
		if err := write(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}
