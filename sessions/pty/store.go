// Package pty implements delta-pty, the experimental terminal sessions of
// seeds/000 §2.3.1, with the two reasons they were deprecated fixed: reads
// return plain text (escape sequences stripped) or the rendered screen,
// and a read can wait for a pattern or for quiet output instead of
// sleep-and-poll. A detached holder process owns the pseudo-terminal, a
// bounded scrollback, a terminal emulator and a unix socket.
package pty

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/sessions"
)

// Statuses of a PTY session.
const (
	StatusActive     = "active"
	StatusExited     = "exited" // the program ended; output can still be read
	StatusDead       = "dead"   // the holder is gone
	StatusTerminated = "terminated"
)

// Sentinel errors.
var (
	ErrUnknownSession = errors.New("unknown pty session")
	ErrBadID          = errors.New("malformed pty session id")
	ErrEnded          = errors.New("pty session ended")
)

// Metadata is metadata.json of a PTY session directory.
type Metadata struct {
	SessionID     string    `json:"session_id"`
	Command       string    `json:"command"`
	Argv          []string  `json:"argv"`
	CreatedAt     time.Time `json:"created_at"`
	Status        string    `json:"status"`
	WorkDir       string    `json:"work_dir"`
	Cols          int       `json:"cols"`
	Rows          int       `json:"rows"`
	IdleTimeoutMS int64     `json:"idle_timeout_ms,omitempty"`
}

// Store is the directory of PTY sessions, shared with delta-sessions
// ($DELTA_SESSIONS_DIR, else ./.sessions); PTY ids start with pty_.
type Store struct {
	Dir string
}

// ids are the ids of PTY sessions.
var ids = sessions.IDScheme{Prefix: "pty_", ErrBad: ErrBadID}

// NewStore returns the store at dir made absolute.
func NewStore(dir string) (*Store, error) {
	abs, err := sessions.ResolveDir(dir)
	if err != nil {
		return nil, err
	}
	return &Store{Dir: abs}, nil
}

// Path returns the directory of session id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id) }

// Load reads the metadata of session id.
func (s *Store) Load(id string) (*Metadata, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w %q", ErrBadID, id)
	}
	return loadMeta(s.Path(id))
}

func loadMeta(dir string) (*Metadata, error) {
	var m Metadata
	if err := sessions.ReadMetadata(dir, &m, ErrUnknownSession); err != nil {
		return nil, err
	}
	return &m, nil
}

// Save writes metadata.json atomically.
func (s *Store) Save(m *Metadata) error { return sessions.WriteMetadata(s.Path(m.SessionID), m) }

// List returns every PTY session, oldest first.
func (s *Store) List() ([]*Metadata, error) {
	return sessions.LoadAll(s.Dir, ids, s.Load, func(m *Metadata) time.Time { return m.CreatedAt })
}
