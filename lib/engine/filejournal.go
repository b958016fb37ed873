package engine

import (
	"github.com/deltakit/delta/lib/journal"
)

// FileJournal is a run's journal.jsonl as the engine's Journal, on top of
// lib/journal: every Append is one synced write of one line; Events reads
// the file back once, ignoring a torn final line (a crash mid-write), and
// then keeps what it read and what Append wrote: the engine holds the run's
// lock, so nobody else appends, and the file is not parsed again on every
// iteration (the context builder still reads it itself).
type FileJournal struct {
	path   string
	w      *journal.Writer
	events []journal.Event
	loaded bool
}

// OpenFileJournal opens (creating) the journal at path for appending; seq
// continues after the last event. A torn final line must be repaired first
// (RepairJournal).
func OpenFileJournal(path string) (*FileJournal, error) {
	w, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	return &FileJournal{path: path, w: w}, nil
}

// Append writes ev as the next line, assigning Seq and Timestamp.
func (j *FileJournal) Append(ev *journal.Event) error {
	if err := j.w.Append(ev); err != nil {
		return err
	}
	if j.loaded {
		j.events = append(j.events, *ev)
	}
	return nil
}

// Events returns every complete event of the journal. The slice is shared:
// callers must not modify it.
func (j *FileJournal) Events() ([]journal.Event, error) {
	if !j.loaded {
		evs, err := journal.ReadFile(j.path)
		if err != nil {
			return nil, err
		}
		j.events, j.loaded = evs, true
	}
	return j.events[:len(j.events):len(j.events)], nil
}

// Close closes the file.
func (j *FileJournal) Close() error { return j.w.Close() }

// RepairJournal makes a journal whose last line was torn by a crash
// appendable again: the torn bytes are saved to journal.jsonl.torn-<time>
// and cut off. It returns the saved file's path, or "" when the journal was
// intact.
func RepairJournal(path string) (string, error) { return journal.Repair(path) }
