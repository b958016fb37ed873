package contextgen

import (
	"bufio"
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
// workspace without a run) is an empty conversation; a torn last line (a
// crash mid-write) is ignored like the engine ignores it.
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
	var events []journal.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var ev journal.Event
		if err := json.Unmarshal(text, &ev); err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && !hasMoreLines(sc) {
				break // torn last line
			}
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrJournal, path, line, err)
		}
		events = append(events, ev)
	}
	return events, sc.Err()
}

func hasMoreLines(sc *bufio.Scanner) bool { return sc.Scan() }
