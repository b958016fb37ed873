package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// ErrTornTail means the journal ends with an incomplete line (a crash
// mid-write). Appending after it would bury the fragment inside the file, so
// Open refuses; call Repair first.
var ErrTornTail = errors.New("journal ends with a torn line")

// Writer appends events to one journal. It is safe for concurrent use, but a
// run has exactly one writer (the engine); readers may read meanwhile.
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	lastSeq int64
	broken  error // set after a failed write: the file may end torn
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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	w := &Writer{f: f, path: path}
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

// Append writes e as one line. It sets e.Seq to the next number when zero
// (a non-zero Seq must be greater than the last one) and e.Timestamp to now
// when zero; timestamps are stored in UTC. The line, newline included, goes
// out in a single write call and is synced to disk before Append returns,
// so an event the engine acts on is never lost and a crash can only tear
// the final line.
func (w *Writer) Append(e *Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken != nil {
		return fmt.Errorf("append to journal %s: earlier write failed: %w", w.path, w.broken)
	}
	if e.Type == "" {
		return fmt.Errorf("append to journal %s: event has no type", w.path)
	}
	seq := e.Seq
	if seq == 0 {
		seq = w.lastSeq + 1
	} else if seq <= w.lastSeq {
		return fmt.Errorf("append to journal %s: seq %d not after last seq %d", w.path, seq, w.lastSeq)
	}
	ts := e.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	ev := *e
	ev.Seq, ev.Timestamp = seq, ts.UTC()
	line, err := encodeLine(&ev)
	if err != nil {
		return fmt.Errorf("append to journal %s: %w", w.path, err)
	}
	if _, err := w.f.Write(line); err != nil {
		w.broken = err
		return fmt.Errorf("append to journal %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		w.broken = err
		return fmt.Errorf("sync journal %s: %w", w.path, err)
	}
	w.lastSeq = seq
	e.Seq, e.Timestamp = ev.Seq, ev.Timestamp
	return nil
}

// encodeLine renders e as one JSON line. HTML escaping is off so that
// `<`, `>` and `&` in tool output stay readable with cat and less.
func encodeLine(e *Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // Encode appends the '\n'
		return nil, err
	}
	return buf.Bytes(), nil
}

// Close closes the journal file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close journal %s: %w", w.path, err)
	}
	return nil
}
