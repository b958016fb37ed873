package board

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The watch fires when another writer modifies the file.
func TestChangeWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "channel.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w := newChangeWatch(path)
	defer w.close()
	if w.fd < 0 {
		t.Skip("inotify unavailable here")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x\n")
	f.Close()
	select {
	case <-w.changed():
	case <-time.After(time.Minute):
		t.Fatal("no change reported within a minute")
	}
}
