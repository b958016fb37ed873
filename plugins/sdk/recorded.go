package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/skills"
)

// Recorded is one earlier call of the run whose result carried Data.
type Recorded struct {
	Tool   string
	CallID string
	Data   json.RawMessage
}

// Recorded returns the Data of the calls to the named tools that the
// run finished before this call, oldest first, skipping calls that
// failed: what a plugin kept of its own calls, read back from the run's
// journal and records. A plugin process is started anew for every
// `delta continue`, so this is how it knows what the process before it
// did (the files the model read, say). Nil outside a run.
func (r CallRequest) Recorded(tools ...string) ([]Recorded, error) {
	runDir := r.RunDir()
	if runDir == "" {
		return nil, nil
	}
	events, err := journal.ReadFile(filepath.Join(runDir, runs.JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's earlier calls: %w", err)
	}
	var out []Recorded
	for _, e := range events {
		if e.Type != journal.ActionResult || e.IsError || e.ExecutionRef == "" || !slices.Contains(tools, e.ToolName) {
			continue
		}
		data, err := recordData(runDir, e.ExecutionRef)
		if err != nil {
			return nil, err
		}
		if len(data) > 0 {
			out = append(out, Recorded{Tool: e.ToolName, CallID: e.CallID, Data: data})
		}
	}
	return out, nil
}

// recordData is the Data of the tool record ref (relative to runDir).
// A record that is missing (a run pruned of its records) has none.
func recordData(runDir, ref string) (json.RawMessage, error) {
	if filepath.IsAbs(ref) || strings.HasPrefix(filepath.Clean(ref), "..") {
		return nil, fmt.Errorf("read the run's earlier calls: record %q is outside the run", ref)
	}
	raw, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(ref)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's earlier calls: %w", err)
	}
	var rec runs.ToolRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("read the run's earlier calls: record %s: %w", ref, err)
	}
	return rec.Data, nil
}

// env is the value of the run's variable key in r.Env ("" when unset).
func (r CallRequest) env(key string) string {
	for i := len(r.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(r.Env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// RunDir is the run's directory (DELTA_RUN_DIR), "" outside a run: the
// key under which a plugin keeps what it knows of one run.
func (r CallRequest) RunDir() string { return r.env("DELTA_RUN_DIR") }

// SkillDirs are the folders holding the agent's skills, in the order the
// skills context source lists them: the agent's, the workspace's, the
// user's. A tool that reads files may let the model read in them though
// they lie outside the workspace, since the context names their files.
func (r CallRequest) SkillDirs() []string {
	return skills.Dirs(r.env("DELTA_AGENT_HOME"), r.WorkDir)
}
