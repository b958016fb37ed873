package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNotRemovable is a run Remove leaves alone: running, waiting, or no
// longer what the caller chose.
var ErrNotRemovable = errors.New("run not removable")

// Remove deletes the run in runDir when removable(its metadata) holds and
// it is neither RUNNING nor WAITING_FOR_INPUT. It works under the run's
// lock (a continue cannot start meanwhile), re-reading the metadata there,
// and first renames the directory out of sight (.delta/.tmp-…), so the run
// disappears at once and whole; a removal cut short is finished by the
// next Create.
func Remove(runDir string, removable func(*Metadata) bool) (*Metadata, error) {
	unlock, err := Acquire(runDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	m, err := ReadMetadata(runDir)
	if err != nil {
		return nil, err
	}
	if m.Status == Running || m.Status == WaitingForInput || !removable(m) {
		return m, fmt.Errorf("%w: %s is %s", ErrNotRemovable, m.RunID, m.Status)
	}
	control := filepath.Dir(runDir)
	gone := filepath.Join(control, fmt.Sprintf("%s%s-%d-removed", tmpPrefix, filepath.Base(runDir), os.Getpid()))
	if err := os.Rename(runDir, gone); err != nil {
		return m, fmt.Errorf("remove run %s: %w", m.RunID, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return m, fmt.Errorf("remove run %s: %w", m.RunID, err)
	}
	return m, nil
}
