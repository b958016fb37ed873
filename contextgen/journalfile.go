package contextgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/deltakit/delta/lib/journal"
)

// ReadJournal reads a run's events the way Build does (delta-context fold
// uses it).
func ReadJournal(path string) ([]journal.Event, error) { return readJournal(path) }

// readJournal reads a run's events. A missing journal (an agent and a
// workspace without a run) is an empty conversation.
func readJournal(path string) ([]journal.Event, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	events, err := parseJournal(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s:%w", ErrJournal, path, err)
	}
	return events, nil
}

// parseJournal decodes journal.jsonl content. A torn last line (a crash
// mid-write: no final newline and not valid JSON) is ignored like the
// engine ignores it; any other bad line is an error naming it.
func parseJournal(data []byte) ([]journal.Event, error) {
	var events []journal.Event
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev journal.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			if !complete {
				break // torn last line
			}
			return nil, fmt.Errorf("%d: %v", n, err)
		}
		events = append(events, ev)
	}
	return events, nil
}
