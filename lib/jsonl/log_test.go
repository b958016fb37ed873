package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openTemp(t *testing.T) *Log {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// A Sync after SyncAhead waits for that fsync instead of making another,
// unless lines were written after it started; a Sync with nothing new
// written makes none.
func TestSyncAheadCountsFsyncs(t *testing.T) {
	l := openTemp(t)
	write := func(s string) {
		t.Helper()
		if err := l.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	write(`"a"`)
	l.SyncAhead()
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := l.Syncs(); got != 1 {
		t.Fatalf("write, SyncAhead, Sync: %d fsyncs, want 1", got)
	}
	if err := l.Sync(); err != nil || l.Syncs() != 1 {
		t.Fatalf("Sync with nothing written: %d fsyncs (%v), want still 1", l.Syncs(), err)
	}
	l.SyncAhead() // nothing to sync: no fsync
	write(`"b"`)
	l.SyncAhead()
	write(`"c"`) // after the fsync started: needs another
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := l.Syncs(); got != 3 {
		t.Fatalf("write, SyncAhead, write, Sync: %d fsyncs in all, want 3", got)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.durable != l.written || l.written != 3 || l.inflight != nil {
		t.Fatalf("after Sync: written %d, durable %d, inflight %v", l.written, l.durable, l.inflight)
	}
}

// Writes, SyncAheads and Syncs from several goroutines (run with -race):
// every Sync returns with all lines written before it durable.
func TestSyncAheadConcurrent(t *testing.T) {
	l := openTemp(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 50 {
				if err := l.Write([]byte("{}\n")); err != nil {
					t.Error(err)
					return
				}
				l.mu.Lock()
				mine := l.written
				l.mu.Unlock()
				if i%2 == 0 {
					l.SyncAhead()
				}
				if err := l.Sync(); err != nil {
					t.Error(err)
					return
				}
				l.mu.Lock()
				durable := l.durable
				l.mu.Unlock()
				if durable < mine {
					t.Errorf("Sync returned with %d lines durable, %d written before it", durable, mine)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.Path())
	if err != nil || bytes.Count(data, []byte("{}\n")) != 200 || len(data) != 200*3 {
		t.Fatalf("read back %d bytes (%v), want 200 lines", len(data), err)
	}
}

// A line is written whole or refused.
func TestWriteRefusesPartialLine(t *testing.T) {
	l := openTemp(t)
	if err := l.Write([]byte(`{"a":1}`)); err == nil {
		t.Fatal("Write of a line without its newline: no error")
	}
	if err := l.Append([]byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(l.Path()); string(data) != "{\"a\":1}\n" {
		t.Errorf("log = %q, want the one whole line", data)
	}
}

// RepairTail cuts what follows the last newline, saving it beside the
// log, and leaves a clean log alone.
func TestRepairTail(t *testing.T) {
	tests := []struct {
		name, content, clean, last, saved string
	}{
		{name: "empty"},
		{name: "clean", content: "{\"seq\":1}\n{\"seq\":2}\n", clean: "{\"seq\":1}\n{\"seq\":2}\n", last: "{\"seq\":2}\n"},
		{name: "torn", content: "{\"seq\":1}\n{\"se", clean: "{\"seq\":1}\n", last: "{\"seq\":1}\n", saved: `{"se`},
		{name: "all torn", content: `{"seq":1`, saved: `{"seq":1`},
		{name: "long line", content: strings.Repeat("x", 10000) + "\n" + strings.Repeat("y", 9000), clean: strings.Repeat("x", 10000) + "\n", last: strings.Repeat("x", 10000) + "\n", saved: strings.Repeat("y", 9000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "log.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			size, err := l.RepairTail()
			if err != nil || size != int64(len(tt.clean)) {
				t.Fatalf("RepairTail() = %d, %v; want %d", size, err, len(tt.clean))
			}
			last, err := l.LastLine(size)
			if err != nil || string(last) != tt.last {
				t.Errorf("LastLine(%d) = %q, %v; want %q", size, last, err, tt.last)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.clean {
				t.Errorf("log after repair = %q, want %q", data, tt.clean)
			}
			saved, _ := filepath.Glob(path + ".torn-*")
			var got string
			if len(saved) == 1 {
				data, _ := os.ReadFile(saved[0])
				got = string(data)
			}
			if got != tt.saved || len(saved) > 1 {
				t.Errorf("saved tails %v = %q, want %q", saved, got, tt.saved)
			}
		})
	}
}

func TestEncodeKeepsHTML(t *testing.T) {
	line, err := Encode(map[string]string{"out": "<a & b>"})
	if err != nil || string(line) != "{\"out\":\"<a & b>\"}\n" {
		t.Errorf("Encode = %q, %v", line, err)
	}
}
