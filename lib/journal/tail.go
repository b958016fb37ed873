package journal

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Tail reads a journal's complete lines as they are appended, for the
// commands that follow a live run (delta log -f, delta otel export
// --follow). A line still being written waits for its newline.
type Tail struct {
	path    string
	offset  int64
	partial []byte
}

// NewTail follows the journal at path from its start.
func NewTail(path string) *Tail { return &Tail{path: path} }

// Next returns the events written since the last call.
func (t *Tail) Next() ([]Event, error) {
	f, err := os.Open(t.path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	t.offset += int64(len(data))
	data = append(t.partial, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	// A line still being written (or torn by a crash) waits for its end.
	t.partial = append([]byte(nil), data[end:]...)
	var evs []Event
	for _, line := range bytes.Split(data[:end], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, err := ParseLine(line)
		if err != nil {
			return evs, fmt.Errorf("journal %s: %w", t.path, err)
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// SkipToEnd passes over what the journal holds now, so that Next returns
// only what is appended from here on. A line still being written is kept
// back as Next keeps it, so the next call does not start mid-line.
func (t *Tail) SkipToEnd() {
	_, _ = t.Next()
}
