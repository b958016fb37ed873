package runs

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/deltakit/delta/lib/atomicfile"
)

// Layout of a workspace's control plane.
const (
	ControlDir    = ".delta"
	VersionFile   = "VERSION"
	LayoutVersion = "1"
)

// The subdirectories Create makes in every run directory.
var runSubdirs = []string{"io/invocations", "io/tool_executions", "io/hooks"}

var (
	// ErrRunExists means the run ID is taken in this workspace.
	ErrRunExists = errors.New("run already exists")
	// ErrNoRun means no run with that ID is in the workspace.
	ErrNoRun = errors.New("no existing run found in the work directory")
)

// Create reserves workDir/.delta/<runID> for a new run and returns it. The
// reservation is a single mkdir, so of two processes asking for one ID
// exactly one wins; the loser gets ErrRunExists and the existing run is not
// touched. Create also makes .delta/VERSION when missing and the run's io/
// subdirectories.
func Create(workDir, runID string) (string, error) {
	if err := ValidateID(runID); err != nil {
		return "", err
	}
	control := filepath.Join(workDir, ControlDir)
	if err := os.MkdirAll(control, 0o755); err != nil {
		return "", fmt.Errorf("create run: %w", err)
	}
	if err := ensureVersion(control); err != nil {
		return "", fmt.Errorf("create run: %w", err)
	}
	runDir := filepath.Join(control, runID)
	if err := os.Mkdir(runDir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create run %s in %s: %w", runID, workDir, ErrRunExists)
		}
		return "", fmt.Errorf("create run: %w", err)
	}
	for _, sub := range runSubdirs {
		if err := os.MkdirAll(filepath.Join(runDir, sub), 0o755); err != nil {
			return "", fmt.Errorf("create run: %w", err)
		}
	}
	return runDir, nil
}

// ensureVersion writes .delta/VERSION atomically when it is missing.
func ensureVersion(control string) error {
	p := filepath.Join(control, VersionFile)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	return atomicfile.Write(p, []byte(LayoutVersion+"\n"), 0o644)
}

// Find returns the directory of run runID in workDir, or ErrNoRun.
func Find(workDir, runID string) (string, error) {
	if err := ValidateID(runID); err != nil {
		return "", err
	}
	runDir := filepath.Join(workDir, ControlDir, runID)
	fi, err := os.Stat(runDir)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("run %s in %s: %w", runID, workDir, ErrNoRun)
	}
	return runDir, nil
}

// List returns the metadata of every run in workDir, newest first (by
// created_at, then run ID). Directories without metadata.json (a run being
// created) are skipped. Unreadable metadata does not hide the other runs:
// they are returned together with an error naming the bad files.
func List(workDir string) ([]Metadata, error) {
	entries, err := os.ReadDir(filepath.Join(workDir, ControlDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []Metadata
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, err := ReadMetadata(filepath.Join(workDir, ControlDir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Metadata) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.RunID, a.RunID)
	})
	return out, errors.Join(errs...)
}
