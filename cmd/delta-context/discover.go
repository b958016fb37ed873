package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
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

// findRun locates run id in workspace, or the most recent run when id is
// empty. ok is false when the workspace holds no run and none was asked
// for.
func findRun(workspace, id string) (r runRef, ok bool, err error) {
	base := filepath.Join(workspace, ".delta")
	if id == "" {
		id, err = latestRun(base)
		if err != nil || id == "" {
			return runRef{}, false, err
		}
	}
	dir := filepath.Join(base, id)
	if _, err := os.Stat(dir); err != nil {
		return runRef{}, false, cli.Errorf(cli.ExitFailed, "list the runs with: delta list-runs -w "+workspace, "run %q not found in %s", id, base)
	}
	r = runRef{ID: id, Dir: dir, Journal: filepath.Join(dir, "journal.jsonl"), WorkDir: workspace}
	r.Events, err = contextgen.ReadJournal(r.Journal)
	if err != nil {
		return runRef{}, false, fmt.Errorf("read run %q: %w", id, err)
	}
	for _, ev := range r.Events {
		if ev.Type == journal.EngineStart {
			r.AgentHome = ev.AgentHome
			if ev.WorkDir != "" {
				r.WorkDir = ev.WorkDir
			}
			break
		}
	}
	for _, ev := range r.Events {
		var cfg struct{ Provider, Model string }
		if ev.Type == journal.EngineStart && json.Unmarshal(ev.Config, &cfg) == nil {
			r.Provider, r.Model = cfg.Provider, cfg.Model
		}
	}
	if r.AgentHome == "" {
		r.AgentHome = metadataAgentHome(dir)
	}
	return r, true, nil
}

// latestRun is the id of the run under base that started last: by its
// ENGINE_START time, else its directory's modification time. Directories
// without a journal are not runs.
func latestRun(base string) (string, error) {
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list runs: %w", err)
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, ok := runStart(filepath.Join(base, e.Name()))
		if ok && (best == "" || t.After(bestTime) || (t.Equal(bestTime) && e.Name() > best)) {
			best, bestTime = e.Name(), t
		}
	}
	return best, nil
}

// runStart reads the start time of the run in dir.
func runStart(dir string) (time.Time, bool) {
	jp := filepath.Join(dir, "journal.jsonl")
	st, err := os.Stat(jp)
	if err != nil {
		return time.Time{}, false
	}
	f, err := os.Open(jp)
	if err != nil {
		return st.ModTime(), true
	}
	defer f.Close()
	var first journal.Event
	if json.NewDecoder(f).Decode(&first) == nil && !first.Timestamp.IsZero() {
		return first.Timestamp, true
	}
	return st.ModTime(), true
}

// metadataAgentHome reads agent_home from metadata.json, for runs whose
// journal has no ENGINE_START yet.
func metadataAgentHome(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return ""
	}
	var m struct {
		AgentHome string `json:"agent_home"`
		AgentRef  string `json:"agent_ref"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	if m.AgentHome != "" {
		return m.AgentHome
	}
	return m.AgentRef
}
