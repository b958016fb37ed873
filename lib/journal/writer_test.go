package journal

import (
	"path/filepath"
	"testing"
)

func openTemp(t *testing.T) *Writer {
	t.Helper()
	w, err := Open(filepath.Join(t.TempDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func write(t *testing.T, w *Writer, content string) {
	t.Helper()
	if _, err := w.Write(&Event{Type: UserMessage, Content: content}); err != nil {
		t.Fatal(err)
	}
}

// A Sync after SyncAhead waits for that fsync instead of making another,
// unless lines were written after it started; a Sync with nothing new
// written makes none.
func TestSyncAheadCountsFsyncs(t *testing.T) {
	w := openTemp(t)
	write(t, w, "a")
	w.SyncAhead()
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := w.Syncs(); got != 1 {
		t.Fatalf("write, SyncAhead, Sync: %d fsyncs, want 1", got)
	}
	if err := w.Sync(); err != nil || w.Syncs() != 1 {
		t.Fatalf("Sync with nothing written: %d fsyncs (%v), want still 1", w.Syncs(), err)
	}
	w.SyncAhead() // nothing to sync: no fsync
	write(t, w, "b")
	w.SyncAhead()
	write(t, w, "c") // after the fsync started: needs another
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := w.Syncs(); got != 3 {
		t.Fatalf("write, SyncAhead, write, Sync: %d fsyncs in all, want 3", got)
	}
}
