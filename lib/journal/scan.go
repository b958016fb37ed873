package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Scan reads the journal at path one event at a time and calls fn with
// each, in file order, with the rules of ReadFile: a torn final line is
// ignored, a bad line anywhere else is an ErrCorrupt error naming its line
// number, blank lines are skipped. A reader that keeps only part of each
// event (delta-context, which keeps the conversation) never holds the
// whole file nor every decoded event: on a long run those are most of
// what it would allocate. The *Event is reused from one call to the next;
// fn may keep its strings and slices but not the pointer. An error from
// fn stops the scan and is returned as it is.
func Scan(path string, fn func(*Event) error) error { return scanPath(path, 0, fn) }

// ScanFields is Scan decoding only type, seq and the fields named by their
// JSON keys: every other field is checked as Scan checks it but may be
// left zero, its strings and slices never made. A reader that needs a few
// fields of each event (a conversation needs none of the timestamps,
// usages, models or refs) allocates that much less.
func ScanFields(path string, keys []string, fn func(*Event) error) error {
	skip := ^(eventFieldBits["type"] | eventFieldBits["seq"])
	for _, k := range keys {
		bit, ok := eventFieldBits[k]
		if !ok {
			return fmt.Errorf("read journal %s: %q is not an event field (see man 5 delta-journal)", path, k)
		}
		skip &^= bit
	}
	return scanPath(path, skip, fn)
}

// scanPath is ScanFields with the fields left out given as decodeFields'
// skip bits.
func scanPath(path string, skip uint64, fn func(*Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	if err := scan(bufio.NewReaderSize(f, 64<<10), skip, fn); err != nil {
		var stop fnError
		if errors.As(err, &stop) {
			return stop.err
		}
		return fmt.Errorf("read journal %s: %w", path, err)
	}
	return nil
}

// fnError carries an error of Scan's fn past the wrapping of read errors.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// scan is scanPath on r. A line that does not parse is an error only once a
// line that is not blank follows it: until then it may be the torn tail.
func scan(r *bufio.Reader, skip uint64, fn func(*Event) error) error {
	var (
		seqs    seqChecker
		ev      Event
		long    []byte // a line longer than r's buffer, gathered
		pending error  // the last line did not parse (torn if nothing follows)
	)
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			// Bytes without a newline are the torn tail (ignored, as
			// ReadFile does), but they make a bad line before them corrupt.
			if pending != nil && len(bytes.TrimSpace(line)) > 0 {
				return pending
			}
			return nil
		}
		if err != nil {
			return err
		}
		line = line[:len(line)-1]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if pending != nil {
			return pending
		}
		ev = Event{}
		if err := parseFields(line, &ev, skip); err != nil {
			pending = fmt.Errorf("line %d: %w: %w", n, ErrCorrupt, err)
			continue
		}
		if err := seqs.next(n, ev.Seq); err != nil {
			return err
		}
		if err := fn(&ev); err != nil {
			return fnError{err}
		}
	}
}
