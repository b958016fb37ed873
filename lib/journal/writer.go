package journal

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/jsonl"
)

// ErrTornTail means the journal ends with an incomplete line (a crash
// mid-write). Appending after it would bury the fragment inside the file, so
// Open refuses; call Repair first.
var ErrTornTail = errors.New("journal ends with a torn line")

// Writer appends events to one journal, a jsonl.Log: each event is one
// line written with one write call, synced before the engine acts on it.
// It is safe for concurrent use, but a run has exactly one writer (the
// engine); readers may read meanwhile.
type Writer struct {
	mu      sync.Mutex // orders seq numbers and lines alike
	log     *jsonl.Log
	path    string
	lastSeq int64
}

// Open opens path for appending, creating it if needed, and finds the last
// seq so that numbering continues across resumes. It repairs nothing: a
// journal with a torn final line yields ErrTornTail (see Repair), and a
// corrupt one an error naming the line.
func Open(path string) (*Writer, error) {
	events, torn, err := scanFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(torn) > 0 {
		return nil, fmt.Errorf("open journal %s: %w (%d bytes); repair it first", path, ErrTornTail, len(torn))
	}
	log, err := jsonl.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	w := &Writer{log: log, path: path}
	for _, e := range events {
		w.lastSeq = max(w.lastSeq, e.Seq)
	}
	return w, nil
}

// LastSeq returns the seq of the last event written or found.
func (w *Writer) LastSeq() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastSeq
}

// Append writes e as one line (see Write) and syncs the journal to disk
// before it returns, so an event the engine acts on is never lost and a
// crash can only tear the final line.
func (w *Writer) Append(e *Event) error {
	if _, err := w.Write(e); err != nil {
		return err
	}
	return w.Sync()
}

// Write writes e as one line without syncing it and returns the line,
// newline included. It sets e.Seq to the next number when zero (a non-zero
// Seq must be greater than the last one) and e.Timestamp to now when zero;
// timestamps are stored in UTC. The line goes out in a single write call,
// so readers see it at once and a crash of the process cannot tear it;
// only a crash of the machine may lose it until the next Sync. Write
// events that nothing acts on yet, and Sync before acting.
func (w *Writer) Write(e *Event) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.Type == "" {
		return nil, fmt.Errorf("append to journal %s: event has no type", w.path)
	}
	seq := e.Seq
	if seq == 0 {
		seq = w.lastSeq + 1
	} else if seq <= w.lastSeq {
		return nil, fmt.Errorf("append to journal %s: seq %d not after last seq %d", w.path, seq, w.lastSeq)
	}
	ts := e.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	ev := *e
	ev.Seq, ev.Timestamp = seq, ts.UTC()
	line, err := jsonl.Encode(&ev)
	if err != nil {
		return nil, fmt.Errorf("append to journal %s: %w", w.path, err)
	}
	if err := w.log.Write(line); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	w.lastSeq = seq
	e.Seq, e.Timestamp = ev.Seq, ev.Timestamp
	return line, nil
}

// Sync makes every event written so far durable, waiting for an fsync
// already under way (SyncAhead) rather than starting a second one.
func (w *Writer) Sync() error {
	if err := w.log.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// SyncAhead starts making the events written so far durable and returns
// at once: the fsync's wait for the disk overlaps the caller's own work,
// and the next Sync only waits for what is left of it.
func (w *Writer) SyncAhead() { w.log.SyncAhead() }

// Syncs returns how many times the journal was synced to disk, so tests
// and benchmarks can count the fsyncs a run costs.
func (w *Writer) Syncs() int { return w.log.Syncs() }

// Stat returns the journal file's information as this writer's file
// descriptor sees it (size, modification time, inode).
func (w *Writer) Stat() (os.FileInfo, error) { return w.log.Stat() }

// Close syncs what was written since the last Sync and closes the
// journal file: every way out of a run leaves its journal durable.
func (w *Writer) Close() error {
	if err := w.log.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
