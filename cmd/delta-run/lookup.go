package main

import (
	"errors"
	"path/filepath"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

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
			return cli.Errorf(runs.ExitConfig, "choose another --run-id, or continue the existing run with: delta continue --run-id "+id+" -w "+ws,
				"run %q already exists in workspace %s", id, ws)
		}
	}
	return nil
}

// locateRun finds the run a command names with --run-id or --last (and
// -w): its id, workspace and directory, or an error that says what to do.
func locateRun(runID string, last bool, workDir string) (id, ws, runDir string, err error) {
	if id, workDir, err = pickRun(runID, last, workDir); err != nil {
		return "", "", "", err
	}
	if err := runs.ValidateID(id); err != nil {
		return "", "", "", cli.WithCode(runs.ExitConfig, "", err)
	}
	ws, runDir, err = runs.Locate(workDir, id)
	if errors.Is(err, runs.ErrNoRun) {
		err = cli.WithCode(runs.ExitFailed, "see the runs with delta list-runs (with -w WORKSPACE)", err)
	}
	return id, ws, runDir, err
}

// pickRun settles which run a command names: --run-id, or --last (the
// newest run of -w, or of the current directory and an agent directory's
// workspaces, with that run's workspace).
func pickRun(runID string, last bool, workDir string) (id, ws string, err error) {
	return pickRunWhere(nil, runID, last, workDir)
}

// pickRunWhere is pickRun whose --last takes the newest run keep accepts
// (nil: any).
func pickRunWhere(keep func(*runs.Metadata) bool, runID string, last bool, workDir string) (id, ws string, err error) {
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
		if dirs, err = runs.ImplicitWorkspaces("."); err != nil {
			return "", "", err
		}
	}
	m, err := runs.LatestWhere(keep, dirs...)
	if err != nil {
		return "", "", cli.WithCode(runs.ExitFailed, "Use `delta run` to start a run, or give the workspace with -w", err)
	}
	return m.RunID, m.WorkDir, nil
}
