package runs

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/sys"
)

// Layout of a workspace's control plane.
const (
	ControlDir    = ".delta"
	VersionFile   = "VERSION"
	LayoutVersion = "1"
)

// The subdirectories Create makes in every run directory.
var runSubdirs = []string{InvocationsDir, ToolExecutionsDir, HooksDir}

var (
	// ErrRunExists means the run ID is taken in this workspace.
	ErrRunExists = errors.New("run already exists")
	// ErrNoRun means no run with that ID is in the workspace.
	ErrNoRun = errors.New("no existing run found in the work directory")
)

// Files of a run directory besides metadata.json (MetadataFile).
const (
	// JournalFile is a run's journal: its events, one JSON object a line.
	JournalFile = "journal.jsonl"
	// EngineLogFile is the engine's own log (retries, tool runs, timings).
	EngineLogFile = "engine.log"
)

// tmpPrefix starts the name of a run directory still being built.
const tmpPrefix = ".tmp-"

// Create makes the run m describes in workDir/.delta/<m.RunID> and returns
// its directory. The run is built whole under a temporary name (metadata,
// an empty journal, the io/ subdirectories) and renamed into place, so a
// run directory is either absent or complete enough to be continued, even
// when the process dies at any moment. The rename is the reservation: of
// two processes asking for one ID exactly one wins; the loser gets
// ErrRunExists and the existing run is not touched. Create also makes
// .delta/VERSION when missing, and removes the temporary directories that
// dead processes left behind.
func Create(workDir string, m *Metadata) (string, error) {
	return create(workDir, m, func(dir string) error {
		return os.WriteFile(filepath.Join(dir, JournalFile), nil, 0o644)
	})
}

// create is Create with fill writing the journal (and any other file)
// into the run directory while it is still under its temporary name.
func create(workDir string, m *Metadata, fill func(dir string) error) (string, error) {
	if err := ValidateID(m.RunID); err != nil {
		return "", err
	}
	control := filepath.Join(workDir, ControlDir)
	if err := os.MkdirAll(control, 0o755); err != nil {
		return "", fmt.Errorf("create run: %w", err)
	}
	if err := ensureVersion(control); err != nil {
		return "", fmt.Errorf("create run: %w", err)
	}
	removeStaleTemps(control)
	runDir := filepath.Join(control, m.RunID)
	if _, err := os.Lstat(runDir); err == nil {
		return "", fmt.Errorf("create run %s in %s: %w", m.RunID, workDir, ErrRunExists)
	}
	tmp, err := os.MkdirTemp(control, fmt.Sprintf("%s%s-%d-", tmpPrefix, m.RunID, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("create run: %w", err)
	}
	if err := populate(tmp, m, fill); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("create run: %w", err)
	}
	if err := renameNoReplace(tmp, runDir); err != nil {
		os.RemoveAll(tmp)
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return "", fmt.Errorf("create run %s in %s: %w", m.RunID, workDir, ErrRunExists)
		}
		return "", fmt.Errorf("create run: %w", err)
	}
	return runDir, nil
}

// populate writes what a new run directory holds before its first event.
func populate(dir string, m *Metadata, fill func(dir string) error) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	for _, sub := range runSubdirs {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	if err := fill(dir); err != nil {
		return err
	}
	m.UpdatedAt = time.Now().UTC()
	return WriteMetadata(dir, m)
}

// renameNoReplace renames a directory onto a name that must not exist
// (rename(2) alone would replace an empty directory there).
func renameNoReplace(from, to string) error {
	err := sys.RenameNoReplace(from, to)
	if errors.Is(err, sys.ErrUnsupported) {
		// A file system without RENAME_NOREPLACE: rename still fails onto
		// a run directory, which is never empty.
		return os.Rename(from, to)
	}
	return err
}

// removeStaleTemps removes the temporary run directories of processes that
// no longer exist (killed while creating a run).
func removeStaleTemps(control string) {
	entries, err := os.ReadDir(control)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := tempOwner(e.Name()); ok && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(control, e.Name()))
		}
	}
}

// tempOwner parses the pid out of ".tmp-<id>-<pid>-<random>".
func tempOwner(name string) (int, bool) {
	if !strings.HasPrefix(name, tmpPrefix) {
		return 0, false
	}
	parts := strings.Split(name, "-")
	if len(parts) < 3 {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	return pid, err == nil && pid > 0
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

// FindFrom returns the directory of run runID in dir's workspace: dir's
// own .delta, else the nearest enclosing directory's. A tool of a
// subagent runs in a subdirectory of the workspace that holds its run
// (spawn_agent's working_dir), and only knows that directory.
func FindFrom(dir, runID string) (string, error) {
	for d := dir; ; {
		if runDir, err := Find(d, runID); err == nil || !errors.Is(err, ErrNoRun) {
			return runDir, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("run %s in %s or above: %w", runID, dir, ErrNoRun)
		}
		d = parent
	}
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
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue // .tmp-…: a run still being created
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
	SortNewestFirst(out)
	return out, errors.Join(errs...)
}

// SortNewestFirst orders runs the way list-runs shows them: newest first
// by created_at, then by run ID. The first is "the latest run" (Latest,
// continue --last, list-runs --first).
func SortNewestFirst(ms []Metadata) {
	slices.SortStableFunc(ms, func(a, b Metadata) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.RunID, a.RunID)
	})
}

// Latest is the newest run of the workspaces (SortNewestFirst), or
// ErrNoRun when they hold none. Unreadable metadata of other runs does not
// stop it.
func Latest(workDirs ...string) (*Metadata, error) {
	return LatestWhere(nil, workDirs...)
}

// LatestWhere is Latest among the runs keep accepts (nil: all).
func LatestWhere(keep func(*Metadata) bool, workDirs ...string) (*Metadata, error) {
	var all []Metadata
	for _, d := range workDirs {
		ms, _ := List(d)
		for i := range ms {
			if keep == nil || keep(&ms[i]) {
				all = append(all, ms[i])
			}
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoRun, strings.Join(workDirs, ", "))
	}
	SortNewestFirst(all)
	return &all[0], nil
}
