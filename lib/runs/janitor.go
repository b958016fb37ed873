package runs

import (
	"errors"
	"fmt"
	"os"
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
