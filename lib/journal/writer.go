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
	// written counts the lines written, durable how many of them a
	// finished fsync covers; inflight is the fsync under way (SyncAhead),
	// which Sync waits for rather than starting another.
	written, durable int64
	inflight         *syncOp
	syncs            int // fsyncs made, for tests and benchmarks
}

// syncOp is one fsync: it covers the first upto lines written.
type syncOp struct {
	upto int64
	done chan struct{}
	err  error
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
	if w.broken != nil {
		return nil, fmt.Errorf("append to journal %s: earlier write failed: %w", w.path, w.broken)
	}
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
	line, err := encodeLine(&ev)
	if err != nil {
		return nil, fmt.Errorf("append to journal %s: %w", w.path, err)
	}
	w.written++
	if _, err := w.f.Write(line); err != nil {
		w.broken = err
		return nil, fmt.Errorf("append to journal %s: %w", w.path, err)
	}
	w.lastSeq = seq
	e.Seq, e.Timestamp = ev.Seq, ev.Timestamp
	return line, nil
}

// Sync makes every line written so far durable. It does nothing when
// nothing was written since the last sync, and waits for an fsync already
// under way (SyncAhead) instead of starting a second one, unless lines
// were written after it started.
func (w *Writer) Sync() error {
	for {
		w.mu.Lock()
		if w.durable >= w.written {
			w.mu.Unlock()
			return nil
		}
		if w.broken != nil {
			w.mu.Unlock()
			return fmt.Errorf("sync journal %s: earlier write failed: %w", w.path, w.broken)
		}
		op := w.inflight
		if op == nil {
			op = w.begin()
			w.mu.Unlock()
			w.run(op)
		} else {
			w.mu.Unlock()
			<-op.done
		}
		if op.err != nil {
			return op.err
		}
	}
}

// SyncAhead starts making the lines written so far durable and returns
// at once: the fsync's wait for the disk overlaps the caller's own work,
// and the next Sync only waits for what is left of it. Writing meanwhile
// is allowed (those lines need the next Sync).
func (w *Writer) SyncAhead() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.durable >= w.written || w.inflight != nil || w.broken != nil {
		return
	}
	go w.run(w.begin())
}

// begin registers a new fsync of every line written so far; w.mu is held.
func (w *Writer) begin() *syncOp {
	op := &syncOp{upto: w.written, done: make(chan struct{})}
	w.inflight = op
	w.syncs++
	return op
}

// run makes op's fsync (without holding w.mu: writes may go on meanwhile)
// and records its outcome.
func (w *Writer) run(op *syncOp) {
	err := w.f.Sync()
	w.mu.Lock()
	if err != nil {
		if w.broken == nil {
			w.broken = err
		}
		op.err = fmt.Errorf("sync journal %s: %w", w.path, err)
	} else {
		w.durable = max(w.durable, op.upto)
	}
	w.inflight = nil
	w.mu.Unlock()
	close(op.done)
}

// Syncs returns how many times the journal was synced to disk, so tests
// and benchmarks can count the fsyncs a run costs.
func (w *Writer) Syncs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs
}

// Stat returns the journal file's information as this writer's file
// descriptor sees it (size, modification time, inode).
func (w *Writer) Stat() (os.FileInfo, error) { return w.f.Stat() }

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

// Close syncs what was written since the last Sync and closes the
// journal file: every way out of a run leaves its journal durable.
func (w *Writer) Close() error {
	serr := w.Sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close journal %s: %w", w.path, err)
	}
	return serr
}
