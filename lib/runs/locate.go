package runs

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Without -w, continue, list-runs and chat look where "delta run" put the runs.
// seeds/000 §2.6.4 and §2.8 run them from the directory of a previous
// "delta run -m …" — which is often the agent directory, while the run
// itself went to a workspace W001, W002 … under it. So the implicit
// workspace is the current directory and, when it is an agent directory,
// each of its workspaces too.

// ImplicitWorkspaces returns the workspaces searched without -w: dir
// itself, then the sequential workspaces under it (workspaces/W001 …,
// where "delta run" puts an agent's runs), newest first. The workspace
// area is what marks an agent directory here, not agent.yaml: it is this
// package's own name, and it also finds the runs of an agent whose file
// is still the legacy config.yaml.
func ImplicitWorkspaces(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	dirs := []string{abs}
	names, err := ListWorkspaces(abs)
	if err != nil {
		return dirs, err
	}
	slices.Reverse(names)
	for _, n := range names {
		dirs = append(dirs, filepath.Join(abs, WorkspacesDir, n))
	}
	return dirs, nil
}

// ErrAmbiguousRun: without -w, the run id exists in several workspaces.
var ErrAmbiguousRun = errors.New("run id found in several workspaces")

// Locate locates run id: in workDir when -w was given, else in the
// implicit workspaces. It returns the workspace (absolute, symlinks
// resolved) and the run directory; a missing run is ErrNoRun.
func Locate(workDir, id string) (ws, runDir string, err error) {
	var dirs []string
	if workDir != "" {
		dirs = []string{workDir}
	} else if dirs, err = ImplicitWorkspaces("."); err != nil {
		return "", "", err
	}
	var found []string
	for _, d := range dirs {
		d, err := Canonical(d)
		if err != nil {
			return "", "", err
		}
		if rd, err := Find(d, id); err == nil {
			ws, runDir = d, rd
			found = append(found, d)
		} else if !errors.Is(err, ErrNoRun) {
			return "", "", err
		}
	}
	switch len(found) {
	case 0:
		where := dirs[0]
		if len(dirs) > 1 {
			where += " or its workspaces"
		}
		return "", "", &noRunError{fmt.Sprintf("no existing run %q found in %s", id, where)}
	case 1:
		return ws, runDir, nil
	}
	return "", "", fmt.Errorf("%w: %s (choose one with -w)", ErrAmbiguousRun, strings.Join(found, ", "))
}

// Canonical makes dir absolute with symlinks resolved (when it exists), so
// that a run records one spelling of its workspace.
func Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if w, err := filepath.EvalSymlinks(abs); err == nil {
		abs = w
	}
	return abs, nil
}

// noRunError says where a run was looked for; it is an ErrNoRun.
type noRunError struct{ msg string }

func (e *noRunError) Error() string { return e.msg }
func (e *noRunError) Unwrap() error { return ErrNoRun }
