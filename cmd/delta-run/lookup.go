package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// Without -w, continue and list-runs look where "delta run" put the runs.
// seeds/000 §2.6.4 and §2.8 run them from the directory of a previous
// "delta run -m …" — which is often the agent directory, while the run
// itself went to a workspace W001, W002 … under it. So the implicit
// workspace is the current directory and, when it is an agent directory,
// each of its workspaces too.

// implicitWorkspaces returns the workspaces searched without -w: dir
// itself, then, when dir holds agent.yaml, its workspaces newest first.
func implicitWorkspaces(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	dirs := []string{abs}
	if _, err := os.Stat(filepath.Join(abs, agent.AgentFile)); err != nil {
		return dirs, nil
	}
	names, err := runs.ListWorkspaces(abs)
	if err != nil {
		return dirs, err
	}
	slices.Reverse(names)
	for _, n := range names {
		dirs = append(dirs, filepath.Join(abs, runs.WorkspacesDir, n))
	}
	return dirs, nil
}

// errAmbiguousRun: without -w, the run id exists in several workspaces.
var errAmbiguousRun = errors.New("run id found in several workspaces")

// findRun locates run id: in workDir when -w was given, else in the
// implicit workspaces. It returns the workspace (absolute, symlinks
// resolved) and the run directory; a missing run is runs.ErrNoRun.
func findRun(workDir, id string) (ws, runDir string, err error) {
	var dirs []string
	if workDir != "" {
		dirs = []string{workDir}
	} else if dirs, err = implicitWorkspaces("."); err != nil {
		return "", "", err
	}
	var found []string
	for _, d := range dirs {
		d, err := canonical(d)
		if err != nil {
			return "", "", err
		}
		if rd, err := runs.Find(d, id); err == nil {
			ws, runDir = d, rd
			found = append(found, d)
		} else if !errors.Is(err, runs.ErrNoRun) {
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
	return "", "", fmt.Errorf("%w: %s (choose one with -w)", errAmbiguousRun, strings.Join(found, ", "))
}

// canonical makes dir absolute with symlinks resolved (when it exists), so
// that a run records one spelling of its workspace.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if w, err := filepath.EvalSymlinks(abs); err == nil {
		abs = w
	}
	return abs, nil
}

// checkIDUnused refuses a --run-id that a workspace of the agent already
// holds. Without -w every run gets a new workspace, so runs.Create alone
// would accept a duplicate, and continue without -w would then find two.
func checkIDUnused(agentHome, id string) error {
	names, err := runs.ListWorkspaces(agentHome)
	if err != nil {
		return err
	}
	for _, n := range names {
		ws := filepath.Join(agentHome, runs.WorkspacesDir, n)
		if _, err := runs.Find(ws, id); err == nil {
			return cli.Errorf(cli.ExitConfig, "choose another --run-id, or continue the existing run with: delta continue --run-id "+id+" -w "+ws,
				"run %q already exists in workspace %s", id, ws)
		}
	}
	return nil
}

// noRunError says where a run was looked for; it is a runs.ErrNoRun.
type noRunError struct{ msg string }

func (e *noRunError) Error() string { return e.msg }
func (e *noRunError) Unwrap() error { return runs.ErrNoRun }

// locateRun finds the run a command names with --run-id or --last (and
// -w): its id, workspace and directory, or an error that says what to do.
func locateRun(runID string, last bool, workDir string) (id, ws, runDir string, err error) {
	if id, workDir, err = pickRun(runID, last, workDir); err != nil {
		return "", "", "", err
	}
	if err := runs.ValidateID(id); err != nil {
		return "", "", "", cli.WithCode(cli.ExitConfig, "", err)
	}
	ws, runDir, err = findRun(workDir, id)
	if errors.Is(err, runs.ErrNoRun) {
		err = cli.WithCode(cli.ExitFailed, "see the runs with delta list-runs (with -w WORKSPACE)", err)
	}
	return id, ws, runDir, err
}

// pickRun settles which run a command names: --run-id, or --last (the
// newest run of -w, or of the current directory and an agent directory's
// workspaces, with that run's workspace).
func pickRun(runID string, last bool, workDir string) (id, ws string, err error) {
	switch {
	case last && runID != "":
		return "", "", cli.Errorf(cli.ExitUsage, "", "give --run-id or --last, not both")
	case !last && runID == "":
		return "", "", cli.Errorf(cli.ExitUsage, "name the run with --run-id ID (see delta list-runs), or take the latest with --last", "no run given")
	case runID != "":
		return runID, workDir, nil
	}
	dirs := []string{workDir}
	if workDir == "" {
		if dirs, err = implicitWorkspaces("."); err != nil {
			return "", "", err
		}
	}
	m, err := runs.Latest(dirs...)
	if err != nil {
		return "", "", cli.WithCode(cli.ExitFailed, "Use `delta run` to start a run, or give the workspace with -w", err)
	}
	return m.RunID, m.WorkDir, nil
}
