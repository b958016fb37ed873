// Package sessions implements delta-sessions (seeds/000 §2.3): persistent
// execution contexts an agent drives one synchronous exec at a time. Shell
// sessions keep their whole state (cwd, variables, functions, aliases,
// options) in files of the session directory and need no daemon;
// interpreter sessions (python3, node) keep a live interpreter in a small
// detached holder process reached through a unix socket.
package sessions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/filelock"
)

// Session statuses as written to metadata.json and printed by list.
const (
	StatusActive     = "active"
	StatusTerminated = "terminated"
	StatusDead       = "dead"
)

// Sentinel errors, matched with errors.Is by callers and tests.
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrEnded          = errors.New("session ended")
	ErrHolderDead     = errors.New("holder not running")
	ErrUnsupported    = errors.New("unsupported session command")
	ErrBadID          = errors.New("malformed session id")
	ErrExists         = errors.New("session already exists")
	ErrNoWorkDir      = errors.New("working directory does not exist")
)

// Metadata is metadata.json of a session directory (seeds/000 §2.3.3), plus
// the kind and argv Delta needs to run it again.
type Metadata struct {
	SessionID      string    `json:"session_id"`
	Command        string    `json:"command"`
	Argv           []string  `json:"argv"`
	Kind           Kind      `json:"kind"`
	CreatedAt      time.Time `json:"created_at"`
	LastExecutedAt time.Time `json:"last_executed_at,omitzero"`
	Status         string    `json:"status"`
	WorkDir        string    `json:"work_dir"`
	ExecutionCount int       `json:"execution_count"`
	IdleTimeoutMS  int64     `json:"idle_timeout_ms,omitempty"`
}

// Store is a directory of sessions: $DELTA_SESSIONS_DIR, else ./.sessions.
type Store struct {
	Dir string
	// MaxOutput caps each of stdout and stderr of an exec result in bytes
	// (head and tail kept, the middle replaced by a marker); 0: no cap.
	// NewStore sets DefaultMaxOutput.
	MaxOutput int
}

// DefaultDir returns the sessions directory from the environment.
func DefaultDir() string {
	if d := os.Getenv("DELTA_SESSIONS_DIR"); d != "" {
		return d
	}
	return ".sessions"
}

// NewStore returns the store at dir made absolute, so that holders and
// later calls from another working directory agree on the paths.
func NewStore(dir string) (*Store, error) {
	abs, err := ResolveDir(dir)
	if err != nil {
		return nil, err
	}
	return &Store{Dir: abs, MaxOutput: DefaultMaxOutput}, nil
}

// Path returns the directory of session id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id) }

// Create makes the directory of a new session and writes its metadata.
func (s *Store) Create(m *Metadata) (string, error) {
	dir, err := CreateDir(s.Dir, m.SessionID)
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteNoSync(filepath.Join(dir, "work_dir.txt"), []byte(m.WorkDir+"\n"), 0o600); err != nil {
		return "", err
	}
	return dir, s.Save(m)
}

// Load reads the metadata of session id.
func (s *Store) Load(id string) (*Metadata, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w %q", ErrBadID, id)
	}
	var m Metadata
	if err := ReadMetadata(s.Path(id), &m, ErrUnknownSession); err != nil {
		return nil, err
	}
	return &m, nil
}

// Save writes metadata.json atomically.
func (s *Store) Save(m *Metadata) error { return WriteMetadata(s.Path(m.SessionID), m) }

// List returns the metadata of every session, oldest first.
func (s *Store) List() ([]*Metadata, error) {
	return LoadAll(s.Dir, ids, s.Load, func(m *Metadata) time.Time { return m.CreatedAt })
}

// Lock takes the exclusive lock of a session directory, waiting for any
// other exec on the same session, so that execs never interleave.
func Lock(dir string) (unlock func(), err error) {
	f, err := LockFile(dir)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// LockFile is Lock returning the open lock file, which also holds the
// record of the exec in progress; closing it unlocks.
func LockFile(dir string) (*os.File, error) {
	f, err := filelock.Lock(filepath.Join(dir, "lock"), 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock session: %w", err)
	}
	return f, nil
}
