package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// target is a run to export: its id and directory.
type target struct{ id, dir string }

// targets resolves the runs named on the command line.
func (c *exportCmd) targets() ([]target, error) {
	if c.Last == (len(c.Runs) > 0) {
		return nil, cli.Errorf(cli.ExitUsage, "for example: delta otel export --last, or delta otel export RUN_ID (see delta list-runs)", "name the runs, or give --last")
	}
	if c.Last {
		dirs := []string{c.WorkDir}
		if c.WorkDir == "" {
			var err error
			if dirs, err = runs.ImplicitWorkspaces("."); err != nil {
				return nil, err
			}
		}
		m, err := runs.LatestWhere(nil, dirs...)
		if err != nil {
			return nil, cli.WithCode(runs.ExitFailed, "give the workspace with -w", err)
		}
		return []target{{m.RunID, m.Dir()}}, nil
	}
	var out []target
	for _, r := range c.Runs {
		t, err := c.resolve(r)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// resolve finds one run: a directory holding a journal is a run
// directory; anything else is a run id.
func (c *exportCmd) resolve(r string) (target, error) {
	if strings.ContainsRune(r, os.PathSeparator) || r == "." {
		if _, err := os.Stat(filepath.Join(r, runs.JournalFile)); err != nil {
			return target{}, cli.WithCode(runs.ExitFailed, "give a run directory (WORKSPACE/.delta/ID) or a run id", err)
		}
		dir, err := runs.Canonical(r)
		if err != nil {
			return target{}, err
		}
		id := filepath.Base(dir)
		if m, err := runs.ReadMetadata(dir); err == nil && m.RunID != "" {
			id = m.RunID
		}
		return target{id, dir}, nil
	}
	if err := runs.ValidateID(r); err != nil {
		return target{}, cli.WithCode(cli.ExitUsage, "give a run id (see delta list-runs) or a run directory", err)
	}
	_, dir, err := runs.Locate(c.WorkDir, r)
	if errors.Is(err, runs.ErrNoRun) {
		err = cli.WithCode(runs.ExitFailed, "see the runs with delta list-runs (with -w WORKSPACE)", err)
	}
	return target{r, dir}, err
}
