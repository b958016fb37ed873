// Package jsonl is the append-only JSON Lines log that holds Delta's
// sources of truth: a run's journal (lib/journal) and a workflow's
// channel (workflow/board).
//
// Its rules make a log survive any crash:
//   - a record is one line, written with one write call: a reader never
//     sees half of it, and a process that dies while appending leaves the
//     whole line or none; only a crash of the machine can tear the last
//     line;
//   - a line is synced to disk before anything acts on it (Append; or
//     Write, then Sync before acting, with SyncAhead to let the wait for
//     the disk overlap other work);
//   - nothing is appended after a torn tail, which would bury the fragment
//     inside the file: the tail is cut off first and saved beside the log
//     as NAME.torn-TIME, so nothing is ever lost (RepairTail, Cut).
//
// A log has one writer at a time: the engine for a journal; for a
// channel, whichever process holds its lock (lib/filelock).
package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Encode renders v as one line of JSON, newline included. HTML escaping
// is off so that `<`, `>` and `&` in tool output stay readable with cat
// and less.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode appends the '\n'
		return nil, err
	}
	return buf.Bytes(), nil
}

// CompleteSize is the length of the complete lines among the first size
// bytes of r: up to and including the last newline.
func CompleteSize(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		chunk := buf[:end-start]
		if _, err := r.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// LastLine is the last line of the first size bytes of r, which are
// complete lines (see CompleteSize); nil when size is 0.
func LastLine(r io.ReaderAt, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	start, err := CompleteSize(r, size-1) // the newline before the last line
	if err != nil {
		return nil, err
	}
	line := make([]byte, size-start)
	if _, err := r.ReadAt(line, start); err != nil && err != io.EOF {
		return nil, err
	}
	return line, nil
}

// Cut cuts the log at path back to its first clean bytes, saving the
// bytes it cuts to PATH.torn-<UTC timestamp> beside it (synced, as is the
// folder), and returns that file's path. A log no longer than clean is
// left alone ("", nil).
func Cut(path string, clean int64) (savedTo string, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return "", fmt.Errorf("repair %s: %w", path, err)
	}
	defer f.Close()
	return cut(f, path, clean)
}

// cut is Cut on f, open for reading and writing.
func cut(f *os.File, path string, clean int64) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("repair %s: %w", path, err)
	}
	if fi.Size() <= clean {
		return "", nil
	}
	torn := make([]byte, fi.Size()-clean)
	if _, err := f.ReadAt(torn, clean); err != nil && err != io.EOF {
		return "", fmt.Errorf("repair %s: %w", path, err)
	}
	savedTo := path + ".torn-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := writeSynced(savedTo, torn); err != nil {
		return "", fmt.Errorf("repair %s: save torn tail: %w", path, err)
	}
	if err := f.Truncate(clean); err != nil {
		return "", fmt.Errorf("repair %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("repair %s: %w", path, err)
	}
	return savedTo, nil
}

// writeSynced creates path with data, synced, and syncs its folder.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
