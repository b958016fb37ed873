package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// runRef is a run found on disk.
type runRef struct {
	ID, Dir, Journal string
	AgentHome        string // from ENGINE_START ("" when not recorded)
	WorkDir          string
	Events           []journal.Event
	// Provider and Model are what the run's last invocation talked to
	// (its ENGINE_START config: --llm and llm.model resolved).
	Provider, Model string
}

// findRun locates run id in workspace, or the latest run (the one
// `delta continue --last` takes) when id is empty. ok is false when the
// workspace holds no run and none was asked for.
func findRun(workspace, id string) (r runRef, ok bool, err error) {
	var meta *runs.Metadata
	if id == "" {
		meta, err = runs.LatestWhere((*runs.Metadata).Resumable, workspace)
		if errors.Is(err, runs.ErrNoRun) {
			return runRef{}, false, nil
		}
		if err != nil {
			return runRef{}, false, err
		}
		id = meta.RunID
	}
	dir, err := runs.Find(workspace, id)
	if errors.Is(err, runs.ErrNoRun) {
		return runRef{}, false, cli.Errorf(cli.ExitFailed, "list the runs with: delta list-runs -w "+workspace,
			"run %q not found in %s", id, filepath.Join(workspace, runs.ControlDir))
	}
	if err != nil {
		return runRef{}, false, cli.WithCode(cli.ExitUsage, "", err)
	}
	r = runRef{ID: id, Dir: dir, Journal: filepath.Join(dir, runs.JournalFile), WorkDir: workspace}
	r.Events, err = contextgen.ReadJournal(r.Journal)
	if err != nil {
		return runRef{}, false, fmt.Errorf("read run %q: %w", id, err)
	}
	for _, ev := range r.Events {
		if ev.Type != journal.EngineStart {
			continue
		}
		if r.AgentHome == "" {
			r.AgentHome = ev.AgentHome
			if ev.WorkDir != "" {
				r.WorkDir = ev.WorkDir
			}
		}
		// The last ENGINE_START (a continue may change the model) wins.
		var cfg struct{ Provider, Model string }
		if json.Unmarshal(ev.Config, &cfg) == nil {
			r.Provider, r.Model = cfg.Provider, cfg.Model
		}
	}
	if r.AgentHome == "" {
		// A run whose journal has no ENGINE_START yet.
		if meta == nil {
			meta, _ = runs.ReadMetadata(dir)
		}
		if meta != nil {
			r.AgentHome = meta.AgentHome
		}
	}
	return r, true, nil
}
