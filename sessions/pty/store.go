// Package pty implements delta-pty, the experimental terminal sessions of
// seeds/000 §2.3.1, with the two reasons they were deprecated fixed: reads
// return plain text (escape sequences stripped) or the rendered screen,
// and a read can wait for a pattern or for quiet output instead of
// sleep-and-poll. A detached holder process owns the pseudo-terminal, a
// bounded scrollback, a terminal emulator and a unix socket.
package pty

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
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
	ErrHolderDead     = sessions.ErrHolderDead
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

// NewStore returns the store at dir made absolute.
func NewStore(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve sessions directory %q: %w", dir, err)
	}
	return &Store{Dir: abs}, nil
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "pty_" + hex.EncodeToString(b[:])
}

func validID(id string) bool {
	if !strings.HasPrefix(id, "pty_") || len(id) <= 4 || len(id) > 64 {
		return false
	}
	for _, r := range id[4:] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Path returns the directory of session id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id) }

// Load reads the metadata of session id.
func (s *Store) Load(id string) (*Metadata, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w %q", ErrBadID, id)
	}
	return loadMeta(s.Path(id))
}

func loadMeta(dir string) (*Metadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %s in %s", ErrUnknownSession, filepath.Base(dir), filepath.Dir(dir))
	}
	if err != nil {
		return nil, fmt.Errorf("read session metadata: %w", err)
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse metadata.json: %w", err)
	}
	return &m, nil
}

// Save writes metadata.json atomically.
func (s *Store) Save(m *Metadata) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteNoSync(filepath.Join(s.Path(m.SessionID), "metadata.json"), append(data, '\n'), 0o600)
}

// List returns every PTY session, oldest first.
func (s *Store) List() ([]*Metadata, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sessions directory: %w", err)
	}
	var out []*Metadata
	for _, e := range entries {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		if m, err := s.Load(e.Name()); err == nil {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}
