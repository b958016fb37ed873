package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/deltakit/delta/lib/journal"
)

// FileJournal is a run's journal.jsonl as the engine's Journal, on top of
// lib/journal: every Append is one write of one line, made durable by
// Sync. Events reads the file once, ignoring a torn final line (a crash
// mid-write), and then keeps what it read and what Append wrote, so that
// an iteration's context is not rebuilt by parsing the whole file again.
//
// The core stays stateless in behaviour: what Events keeps is exactly what
// reading the file back yields (each appended line is decoded from the
// bytes written), and when something outside the engine changed the file
// (another inode, size or modification time than the last read or write
// left) Events reads it again from disk. (An edit that keeps the size,
// made within the filesystem's timestamp granularity of the engine's own
// last write, cannot be told apart; nothing but the engine appends to a
// running run's journal.)
type FileJournal struct {
	path   string
	w      *journal.Writer
	events []journal.Event
	// seen is the file as of the last read or write; nil when the kept
	// events may not match the file (never read, or a write that did not
	// land where expected): Events then reads the file.
	seen os.FileInfo
}

// OpenFileJournal opens (creating) the journal at path for appending; seq
// continues after the last event. A torn final line must be repaired first
// (journal.Repair).
func OpenFileJournal(path string) (*FileJournal, error) {
	w, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	return &FileJournal{path: path, w: w}, nil
}

// Append writes ev as the next line, assigning Seq and Timestamp. The line
// is visible to readers at once but durable only after Sync.
func (j *FileJournal) Append(ev *journal.Event) error {
	_, err := j.AppendLine(ev)
	return err
}

// AppendLine is Append that also returns the line written, newline
// included: a mirror of the journal hands on exactly these bytes.
func (j *FileJournal) AppendLine(ev *journal.Event) ([]byte, error) {
	line, err := j.w.Write(ev)
	if err != nil {
		j.seen = nil
		return nil, err
	}
	j.keep(line)
	return line, nil
}

// keep adds the event just written to the kept events when the file is
// still the one they were read from, grown by exactly line.
func (j *FileJournal) keep(line []byte) {
	if j.seen == nil {
		return
	}
	fi, err := j.w.Stat()
	if err != nil || !os.SameFile(fi, j.seen) || fi.Size() != j.seen.Size()+int64(len(line)) {
		j.seen = nil // someone else wrote too: read the file next time
		return
	}
	ev, err := journal.ParseLine(bytes.TrimSuffix(line, []byte{'\n'}))
	if err != nil {
		j.seen = nil
		return
	}
	j.events = append(j.events, ev)
	j.seen = fi
}

// Sync makes every event appended so far durable.
func (j *FileJournal) Sync() error { return j.w.Sync() }

// SyncAhead starts making the events appended so far durable without
// waiting for the disk; the next Sync waits for what is left of it.
func (j *FileJournal) SyncAhead() { j.w.SyncAhead() }

// Syncs returns how many times the journal was synced to disk.
func (j *FileJournal) Syncs() int { return j.w.Syncs() }

// Events returns every complete event of the journal. The slice is shared:
// callers must not modify it. Its events are never changed: a later call
// returns them with what was appended since, in the same backing array
// until it outgrows it, or a new slice when the file was read again.
func (j *FileJournal) Events() ([]journal.Event, error) {
	if j.seen != nil {
		fi, err := os.Stat(j.path)
		if err != nil || !sameState(fi, j.seen) {
			j.seen = nil
		}
	}
	if j.seen == nil {
		if err := j.checkIdentity(); err != nil {
			return nil, err
		}
		if err := j.load(); err != nil {
			return nil, err
		}
	}
	return j.events[:len(j.events):len(j.events)], nil
}

// ErrJournalGone is the journal file removed or replaced while the run
// was running: what the engine appends would go to a file no one reads,
// and its history is no longer what the path holds.
var ErrJournalGone = errors.New("the run's journal was removed or replaced while the run was running")

// Check returns an ErrJournalGone error when the path no longer names the
// file being appended to (the journal or its run directory was removed
// or replaced), else nil.
func (j *FileJournal) Check() error { return j.checkIdentity() }

// checkIdentity makes sure the path still names the file being appended
// to.
func (j *FileJournal) checkIdentity() error {
	mine, err := j.w.Stat()
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	fi, err := os.Stat(j.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s no longer exists", ErrJournalGone, j.path)
	case err != nil:
		return fmt.Errorf("journal %s: %w", j.path, err)
	case !os.SameFile(fi, mine):
		return fmt.Errorf("%w: %s is another file now", ErrJournalGone, j.path)
	}
	return nil
}

// load reads the file and, when it did not change while being read,
// remembers its state for later calls.
func (j *FileJournal) load() error {
	f, err := os.Open(j.path)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	data := make([]byte, 0, before.Size()+512)
	data, err = readAll(f, data)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	evs, torn, err := journal.Parse(data)
	if err != nil {
		return fmt.Errorf("read journal %s: %w", j.path, err)
	}
	j.events = evs
	// A torn tail (written by someone else: Open refuses one) would merge
	// with the next line written: such a file is always read again.
	after, err := f.Stat()
	if err == nil && len(torn) == 0 && sameState(after, before) && after.Size() == int64(len(data)) {
		j.seen = after
	}
	return nil
}

// readAll reads r to its end into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// sameState reports whether a and b describe the same file with the same
// size and modification time.
func sameState(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// Close syncs and closes the file.
func (j *FileJournal) Close() error { return j.w.Close() }
