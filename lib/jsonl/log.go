package jsonl

import (
	"fmt"
	"os"
	"sync"
)

// Log is a JSON Lines file open for appending. It is safe for concurrent
// use; readers may read the file meanwhile.
type Log struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	broken error // set after a failed write or sync: the file may end torn
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

// Open opens the log at path for appending, creating it if needed. It
// repairs nothing: see RepairTail.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &Log{f: f, path: path}, nil
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

// RepairTail cuts a torn tail, the bytes after the last newline, off the
// log (see Cut) and returns the size of its complete lines. The caller
// must be the log's only writer.
func (l *Log) RepairTail() (int64, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("repair %s: %w", l.path, err)
	}
	clean, err := CompleteSize(l.f, fi.Size())
	if err != nil {
		return 0, fmt.Errorf("repair %s: %w", l.path, err)
	}
	if _, err := cut(l.f, l.path, clean); err != nil {
		return 0, err
	}
	return clean, nil
}

// LastLine is the log's last line, whose first size bytes are complete
// lines (RepairTail's size); nil when it is empty.
func (l *Log) LastLine(size int64) ([]byte, error) {
	line, err := LastLine(l.f, size)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", l.path, err)
	}
	return line, nil
}

// Append writes line (see Write) and syncs the log before it returns, so
// a line acted on is never lost.
func (l *Log) Append(line []byte) error {
	if err := l.Write(line); err != nil {
		return err
	}
	return l.Sync()
}

// Write writes line, one JSON value ending in a newline (see Encode),
// without syncing it. It goes out in a single write call, so readers see
// it at once and a crash of the process cannot tear it; only a crash of
// the machine may lose it until the next Sync. After a failed write the
// log refuses more: the file may end torn.
func (l *Log) Write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken != nil {
		return fmt.Errorf("append to %s: earlier write failed: %w", l.path, l.broken)
	}
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return fmt.Errorf("append to %s: a line must end in a newline", l.path)
	}
	l.written++
	if _, err := l.f.Write(line); err != nil {
		l.broken = err
		return fmt.Errorf("append to %s: %w", l.path, err)
	}
	return nil
}

// Sync makes every line written so far durable. It does nothing when
// nothing was written since the last sync, and waits for an fsync already
// under way (SyncAhead) instead of starting a second one, unless lines
// were written after it started.
func (l *Log) Sync() error {
	for {
		l.mu.Lock()
		if l.durable >= l.written {
			l.mu.Unlock()
			return nil
		}
		if l.broken != nil {
			l.mu.Unlock()
			return fmt.Errorf("sync %s: earlier write failed: %w", l.path, l.broken)
		}
		op := l.inflight
		if op == nil {
			op = l.begin()
			l.mu.Unlock()
			l.run(op)
		} else {
			l.mu.Unlock()
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
func (l *Log) SyncAhead() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.durable >= l.written || l.inflight != nil || l.broken != nil {
		return
	}
	go l.run(l.begin())
}

// begin registers a new fsync of every line written so far; l.mu is held.
func (l *Log) begin() *syncOp {
	op := &syncOp{upto: l.written, done: make(chan struct{})}
	l.inflight = op
	l.syncs++
	return op
}

// run makes op's fsync (without holding l.mu: writes may go on meanwhile)
// and records its outcome.
func (l *Log) run(op *syncOp) {
	err := l.f.Sync()
	l.mu.Lock()
	if err != nil {
		if l.broken == nil {
			l.broken = err
		}
		op.err = fmt.Errorf("sync %s: %w", l.path, err)
	} else {
		l.durable = max(l.durable, op.upto)
	}
	l.inflight = nil
	l.mu.Unlock()
	close(op.done)
}

// Syncs returns how many times the log was synced to disk, so tests and
// benchmarks can count the fsyncs a run costs.
func (l *Log) Syncs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncs
}

// Stat returns the file's information as this log's file descriptor sees
// it (size, modification time, inode).
func (l *Log) Stat() (os.FileInfo, error) { return l.f.Stat() }

// Close syncs what was written since the last Sync and closes the file:
// every way out leaves the log durable.
func (l *Log) Close() error {
	serr := l.Sync()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", l.path, err)
	}
	return serr
}
