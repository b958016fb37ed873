package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

var (
	// ErrOtherHost means a RUNNING run was started on another host, whose
	// processes we cannot see.
	ErrOtherHost = errors.New("run started on a different host")
	// ErrStillRunning means the run's process is alive.
	ErrStillRunning = errors.New("run is still active")
)

// RunError is a janitor refusal: Msg is the message of seeds/000 §2.1.5,
// Hint what the user can do. errors.Is matches its Kind.
type RunError struct {
	Kind error
	Msg  string
	Hint string
}

func (e *RunError) Error() string { return e.Msg }

// Unwrap returns the sentinel kind.
func (e *RunError) Unwrap() error { return e.Kind }

// Janitor applies seeds/000 §2.1.5 to a run about to be continued. For a
// RUNNING run whose process is gone (or whose pid now belongs to another
// process) it sets m.Status to INTERRUPTED; the caller writes the metadata.
// A live process yields ErrStillRunning. A run started on another host
// yields ErrOtherHost unless force is set, in which case the liveness
// check, meaningless across hosts, is skipped. Other states are left
// alone.
func Janitor(m *Metadata, force bool) error {
	if m.Status != Running {
		return nil
	}
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("janitor: %w", err)
	}
	if m.Hostname != "" && m.Hostname != host {
		if !force {
			return &RunError{
				Kind: ErrOtherHost,
				Msg: fmt.Sprintf("run %s was started on host '%s'; cannot verify process status from host '%s'",
					m.RunID, m.Hostname, host),
				Hint: "if you're certain the original process is dead, use --force",
			}
		}
		m.Status = Interrupted
		return nil
	}
	alive, err := Alive(m)
	if err != nil {
		return fmt.Errorf("janitor: %w", err)
	}
	if alive {
		return &RunError{
			Kind: ErrStillRunning,
			Msg: fmt.Sprintf("run %s is still active (PID %d); cannot continue while original process is running",
				m.RunID, m.PID),
			Hint: "wait for it to finish or interrupt it first",
		}
	}
	m.Status = Interrupted
	return nil
}

// ServeJanitor is the janitor for a delta mcp serve session (MCPServe),
// which continue refuses and so never cleans up: when m is a RUNNING
// session whose process is gone (Janitor's test: this host only, a reused
// pid told apart by its start time), m becomes INTERRUPTED, as a crashed
// run does when continue finds it, and ServeJanitor reports true. Its
// updated_at becomes the session's last sign of life, the later of
// updated_at and the last write to its journal (runDir's), so that prune
// --older-than counts from when the session stopped, not from when it
// was found dead. A live session, a session of another host and every
// other run are left alone. Only m changes: CleanUpServe writes it.
func ServeJanitor(m *Metadata, runDir string) bool {
	if !m.MCPServe || m.Status != Running {
		return false
	}
	if err := Janitor(m, false); err != nil || m.Status != Interrupted {
		return false
	}
	if fi, err := os.Stat(filepath.Join(runDir, JournalFile)); err == nil && fi.ModTime().After(m.UpdatedAt) {
		m.UpdatedAt = fi.ModTime().UTC()
	}
	return true
}

// CleanUpServe applies ServeJanitor to the serve session in runDir and
// writes the outcome, under the run's lock and on the metadata read
// there, so that two commands cleaning up at once agree. It returns the
// run's metadata and whether it was cleaned up (false for a live session
// and for any run ServeJanitor leaves alone); ErrRunBusy when another
// process holds the run.
func CleanUpServe(runDir string) (*Metadata, bool, error) {
	unlock, err := Acquire(runDir)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	m, err := ReadMetadata(runDir)
	if err != nil {
		return nil, false, err
	}
	if !ServeJanitor(m, runDir) {
		return m, false, nil
	}
	if err := WriteMetadata(runDir, m); err != nil {
		return nil, false, err
	}
	return m, true, nil
}
