package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReplaceFile checks that a file is created, then replaced through its
// spare, which keeps the old content; a shorter content leaves no tail.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"first, long content\n", "second\n", "third, longer than the second\n"} {
		if err := replaceFile(dir, "f", []byte(content)); err != nil {
			t.Fatalf("replaceFile(%q): %v", content, err)
		}
		if got := readFile(t, filepath.Join(dir, "f")); got != content {
			t.Errorf("f = %q, want %q", got, content)
		}
	}
	if got, want := readFile(t, filepath.Join(dir, ".f.new")), "second\n"; got != want {
		t.Errorf("spare = %q, want the previous content %q", got, want)
	}
}

// TestExchangeMissingSpare checks that a missing spare is an error and
// leaves the file alone.
func TestExchangeMissingSpare(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := exchange(dir, "f"); err == nil {
		t.Error("exchange with no spare succeeded")
	}
	if got := readFile(t, filepath.Join(dir, "f")); got != "kept\n" {
		t.Errorf("f = %q, want it kept", got)
	}
}
