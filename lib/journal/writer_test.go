package journal

import (
	"path/filepath"
	"sync"
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
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.durable != w.written || w.written != 3 || w.inflight != nil {
		t.Fatalf("after Sync: written %d, durable %d, inflight %v", w.written, w.durable, w.inflight)
	}
}

// Writes, SyncAheads and Syncs from several goroutines (run with -race):
// every Sync returns with all lines written before it durable.
func TestSyncAheadConcurrent(t *testing.T) {
	w := openTemp(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := w.Write(&Event{Type: UserMessage, Content: "x"}); err != nil {
					t.Error(err)
					return
				}
				w.mu.Lock()
				mine := w.written
				w.mu.Unlock()
				if i%2 == 0 {
					w.SyncAhead()
				}
				if err := w.Sync(); err != nil {
					t.Error(err)
					return
				}
				w.mu.Lock()
				durable := w.durable
				w.mu.Unlock()
				if durable < mine {
					t.Errorf("Sync returned with %d lines durable, %d written before it", durable, mine)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	events, err := ReadFile(w.path)
	if err != nil || len(events) != 200 {
		t.Fatalf("read back %d events (%v), want 200", len(events), err)
	}
}
