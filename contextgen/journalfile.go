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

// Stream is a run's conversation built while its journal is read one
// event at a time (journal.Scan), for a reader that does not keep the
// events: delta-context on a long run would otherwise hold every decoded
// event at once. Set it as a Builder's Journal.
type Stream struct {
	r       *rebuilder
	waiting bool // the last event says the run waits for a human (waitsAfter)
}

// StreamFields are the JSON keys of the event fields Add reads (besides
// type and seq): a reader that scans a journal for a Stream needs to
// decode only these (journal.ScanFields).
func StreamFields() []string {
	return []string{"content", "tool_calls", "reasoning", "call_id", "tool_name", "observation_content", "is_error",
		"parts", "prompt", "response", "status", "unsandboxed"}
}

// NewStream returns an empty Stream of the run in runDir, whose files
// the images of tool results are read from ("": none).
func NewStream(runDir string) *Stream { return &Stream{r: newRebuilder(runDir)} }

// Add takes the next event of the journal. It keeps ev's strings and
// slices, never ev itself, so the caller may reuse it.
func (s *Stream) Add(ev *journal.Event) {
	s.r.add(ev)
	s.waiting = waitsAfter(ev)
}

// conversation is the conversation of the events added so far.
func (s *Stream) conversation() *conversation {
	return s.r.conversation(s.waiting)
}
