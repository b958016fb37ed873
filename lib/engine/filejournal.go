package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/journal"
)

// FileJournal is a run's journal.jsonl as the engine's Journal: every
// Append is one write of one line, synced before it returns; Events reads
// the file back, ignoring a torn final line (a crash mid-write).
type FileJournal struct {
	path string
	mu   sync.Mutex
	f    *os.File
	seq  int64
}

// OpenFileJournal opens (creating) the journal at path for appending. The
// next seq continues after the last complete event.
func OpenFileJournal(path string) (*FileJournal, error) {
	j := &FileJournal{path: path}
	events, err := j.Events()
	if err != nil {
		return nil, err
	}
	if n := len(events); n > 0 {
		j.seq = events[n-1].Seq
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j.f = f
	return j, nil
}

// Append writes ev as the next line, assigning Seq and Timestamp.
func (j *FileJournal) Append(ev *journal.Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	ev.Seq = j.seq + 1
	if ev.Timestamp.IsZero() {
		ev.Timestamp = time.Now().UTC()
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.seq = ev.Seq
	return nil
}

// Events reads every complete event of the journal.
func (j *FileJournal) Events() ([]journal.Event, error) {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	var events []journal.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var ev journal.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && sc.Err() == nil && !moreLines(sc) {
				break // torn final line
			}
			return nil, fmt.Errorf("journal %s line %d: %w", j.path, line, err)
		}
		events = append(events, ev)
	}
	return events, sc.Err()
}

// moreLines reports whether the scanner has another line (consuming it;
// only used on the error path).
func moreLines(sc *bufio.Scanner) bool { return sc.Scan() }

// Close closes the file.
func (j *FileJournal) Close() error { return j.f.Close() }

// RepairJournal makes a journal whose last line was torn by a crash
// appendable again: the original is copied to journal.jsonl.corrupt-<time>
// and the file is cut after its last complete line. It returns the copy's
// path, or "" when the journal was intact.
func RepairJournal(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || len(data) == 0 || data[len(data)-1] == '\n' {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read journal: %w", err)
	}
	backup := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
	if err := os.WriteFile(backup, data, 0o644); err != nil {
		return "", fmt.Errorf("keep torn journal: %w", err)
	}
	keep := bytes.LastIndexByte(data, '\n') + 1
	if err := os.Truncate(path, int64(keep)); err != nil {
		return "", fmt.Errorf("repair journal: %w", err)
	}
	return backup, nil
}
