package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/deltakit/delta/lib/jsonl"
)

// ErrCorrupt marks a journal line that is not a valid event and is not the
// torn final line.
var ErrCorrupt = errors.New("corrupt journal")

// ParseLine decodes one journal line (without its newline). An event must
// be a JSON object with a type.
func ParseLine(line []byte) (Event, error) {
	var e Event
	if err := parseInto(line, &e); err != nil {
		return Event{}, err
	}
	return e, nil
}

// parseInto is ParseLine decoding into *e, which must be the zero Event.
func parseInto(line []byte, e *Event) error { return parseFields(line, e, 0, nil) }

// parseFields is parseInto that may leave the fields whose bits are in
// skip zero and make the strings in shared (decodeFields).
func parseFields(line []byte, e *Event, skip uint64, shared *sharedStrings) error {
	if !decodeFields(line, e, skip, shared) {
		// What the one-pass decoder leaves (unusual but maybe valid JSON,
		// or an error to report) is decoded by encoding/json.
		*e = Event{}
		if err := json.Unmarshal(line, e); err != nil {
			return err
		}
	}
	if e.Type == "" {
		return errors.New(`event has no "type"`)
	}
	return nil
}

// ReadFile returns every complete event of the journal at path. A torn
// final line — bytes after the last newline, or a last line that does not
// parse, as a crash mid-write or a filesystem that lost the tail leaves
// behind — is ignored. A bad line anywhere else is an ErrCorrupt error
// naming its line number. Blank lines are skipped.
func ReadFile(path string) ([]Event, error) {
	events, _, err := scanFile(path)
	return events, err
}

// Check reports the torn tail of the journal, nil when it ends cleanly. It
// fails like ReadFile when the journal is corrupt before its end.
func Check(path string) (torn []byte, err error) {
	_, torn, err = scanFile(path)
	return torn, err
}

// Repair cuts a torn final line off the journal, saving the bytes it cut
// to journal.jsonl.torn-<UTC timestamp> beside it so nothing is ever lost,
// and returns that file's path (see jsonl.Cut). A clean journal is left
// alone ("", nil).
func Repair(path string) (savedTo string, err error) {
	_, torn, err := scanFile(path)
	if err != nil || len(torn) == 0 {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("repair journal: %w", err)
	}
	return jsonl.Cut(path, fi.Size()-int64(len(torn)))
}

// scanFile parses the journal at path into events and its torn tail.
func scanFile(path string) ([]Event, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read journal: %w", err)
	}
	events, torn, err := parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	return events, torn, nil
}

// Parse splits the content of a journal into its complete events and its
// torn tail, as ReadFile does, for callers that read the file themselves.
func Parse(data []byte) (events []Event, torn []byte, err error) { return parse(data) }

// parse splits data into events and a torn tail.
func parse(data []byte) ([]Event, []byte, error) {
	events := make([]Event, 0, bytes.Count(data, []byte{'\n'}))
	// Decoded in place: an Event is large, copies add up over a long
	// journal. A line that fails leaves its slot to the next one.
	kept := 0
	slot := func() *Event {
		events = append(events[:kept], Event{})
		return &events[kept]
	}
	torn, err := eachEvent(data, lines{slot: slot}, func(*Event) error { kept++; return nil })
	if err != nil {
		return nil, nil, err
	}
	return events[:kept], torn, nil
}

// lines is how eachEvent decodes: the fields it may leave zero (skip, as
// decodeFields takes them), where the strings are made (shared, nil: each
// apart) and where each event is decoded (slot, nil: one Event reused).
type lines struct {
	skip   uint64
	shared *sharedStrings
	slot   func() *Event
}

// eachEvent calls fn with each complete event of data, in order, with the
// rules of ReadFile: a torn final line (bytes after the last newline, or a
// last line that does not parse) is returned as torn, a bad line anywhere
// else is an ErrCorrupt error naming its line number, blank lines are
// skipped, seq numbers are checked. An error of fn stops it, as an
// fnError.
func eachEvent(data []byte, how lines, fn func(*Event) error) (torn []byte, err error) {
	var (
		seqs seqChecker
		ev   Event
	)
	rest := data
	for n := 1; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return rest, nil // no newline: torn
		}
		line := rest[:i]
		if isBlank(line) {
			rest = rest[i+1:]
			continue
		}
		e := &ev
		if how.slot != nil {
			e = how.slot()
		} else {
			ev = Event{}
		}
		if err := parseFields(line, e, how.skip, how.shared); err != nil {
			if isLastLine(rest[i+1:]) {
				return rest, nil // complete but unparsable last line: torn
			}
			return nil, fmt.Errorf("line %d: %w: %w", n, ErrCorrupt, err)
		}
		if err := seqs.next(n, e.Seq); err != nil {
			return nil, err
		}
		if err := fn(e); err != nil {
			return nil, fnError{err}
		}
		rest = rest[i+1:]
	}
	return nil, nil
}

// isBlank reports whether line is only white space (most lines start with
// '{': they are not).
func isBlank(line []byte) bool {
	return len(line) == 0 || line[0] != '{' && len(bytes.TrimSpace(line)) == 0
}

// isLastLine reports whether nothing but blank space follows.
func isLastLine(after []byte) bool {
	return len(bytes.TrimSpace(after)) == 0
}
