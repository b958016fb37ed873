package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	// Conversation is the run's conversation, built as its journal was
	// read (the events themselves are not kept); Thoughts counts its
	// THOUGHT events.
	Conversation *contextgen.Stream
	Thoughts     int
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
		return runRef{}, false, cli.Errorf(runs.ExitFailed, "list the runs with: delta list-runs -w "+workspace,
			"run %q not found in %s", id, filepath.Join(workspace, runs.ControlDir))
	}
	if err != nil {
		return runRef{}, false, cli.WithCode(cli.ExitUsage, "", err)
	}
	r = runRef{ID: id, Dir: dir, Journal: filepath.Join(dir, runs.JournalFile), WorkDir: workspace}
	if err := r.read(); err != nil {
		return runRef{}, false, fmt.Errorf("read run %q: %w", id, err)
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

// read reads the run's journal once, event by event: what the run
// records about itself and its conversation. A missing journal (a run
// that has not started) is an empty conversation.
func (r *runRef) read() error {
	r.Conversation = contextgen.NewStream(r.Dir)
	// Only what the conversation and this function read is decoded: not
	// every event's timestamp, usage, model and refs.
	fields := append(contextgen.StreamFields(), "agent_home", "work_dir", "config")
	err := journal.ScanFields(r.Journal, fields, func(ev *journal.Event) error {
		r.Conversation.Add(ev)
		switch ev.Type {
		case journal.Thought:
			r.Thoughts++
		case journal.EngineStart:
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
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", contextgen.ErrJournal, err)
	}
	return nil
}
