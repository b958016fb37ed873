package contextgen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/deltakit/delta/lib/journal"
)

// ReadJournal reads a run's events the way Build does (delta-context fold
// uses it).
func ReadJournal(path string) ([]journal.Event, error) { return readJournal(path) }

// readJournal reads a run's events with journal.ReadFile, as the engine
// does (a torn last line is ignored). A missing journal (an agent and a
// workspace without a run) is an empty conversation.
func readJournal(path string) ([]journal.Event, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	events, err := journal.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return events, nil
}
