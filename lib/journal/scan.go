package journal

import (
	"errors"
	"fmt"
	"os"
)

// Scan reads the journal at path and calls fn with each event, in file
// order, with the rules of ReadFile: a torn final line is ignored, a bad
// line anywhere else is an ErrCorrupt error naming its line number, blank
// lines are skipped. A reader that keeps only part of each event
// (delta-context, which keeps the conversation) never holds every decoded
// event: on a long run those are most of what it would allocate. The
// *Event is reused from one call to the next; fn may keep its strings and
// slices but not the pointer. An error from fn stops the scan and is
// returned as it is.
func Scan(path string, fn func(*Event) error) error { return scanPath(path, lines{}, fn) }

// ScanFields is Scan decoding only type, seq and the fields named by their
// JSON keys: every other field is checked as Scan checks it but may be
// left zero, its strings and slices never made. A reader that needs a few
// fields of each event (a conversation needs none of the timestamps,
// usages, models or refs) allocates that much less. The strings it makes
// share memory (the journal's bytes, and buffers for those with escapes):
// one string kept keeps the whole journal in memory, which a reader that
// keeps what it asked for of each event holds anyway.
func ScanFields(path string, keys []string, fn func(*Event) error) error {
	skip := ^(eventFieldBits["type"] | eventFieldBits["seq"])
	for _, k := range keys {
		bit, ok := eventFieldBits[k]
		if !ok {
			return fmt.Errorf("read journal %s: %q is not an event field (see man 5 delta-journal)", path, k)
		}
		skip &^= bit
	}
	return scanPath(path, lines{skip: skip, shared: &sharedStrings{}}, fn)
}

// scanPath is Scan decoding as how says.
func scanPath(path string, how lines, fn func(*Event) error) error {
	// Read whole, in one read: line by line through a buffer costs more in
	// copies and calls than the file takes in memory.
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	if _, err := eachEvent(data, how, fn); err != nil {
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
