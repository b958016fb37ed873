package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/journal"
)

// DeltaEngineSuffix ends the names of the original files of a run written
// by delta-engine 1.10, kept beside their converted versions.
const DeltaEngineSuffix = ".delta-engine"

// deltaEngineMetadata is metadata.json as delta-engine 1.10 writes it.
type deltaEngineMetadata struct {
	RunID               string     `json:"run_id"`
	StartTime           time.Time  `json:"start_time"`
	EndTime             *time.Time `json:"end_time"`
	AgentRef            string     `json:"agent_ref"`
	Task                string     `json:"task"`
	Status              Status     `json:"status"`
	IterationsCompleted int        `json:"iterations_completed"`
	PID                 int        `json:"pid"`
	Hostname            string     `json:"hostname"`
	StartTimeUnix       int64      `json:"start_time_unix"`
	ProcessName         string     `json:"process_name"`
	AgentHome           string     `json:"agent_home"`
}

// ImportDeltaEngine converts, in place, a run directory written by the
// TypeScript delta-engine 1.10 (metadata with agent_ref and task, journal
// events with a payload) into Delta's form, so that continue can resume
// it. The original files are kept as metadata.json.delta-engine and
// journal.jsonl.delta-engine: nothing is lost. It reports whether it
// converted anything; a Delta run is left alone.
func ImportDeltaEngine(runDir, workDir string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(runDir, MetadataFile))
	if err != nil {
		return false, nil // Find and ReadMetadata report it
	}
	var old deltaEngineMetadata
	if json.Unmarshal(data, &old) != nil || old.AgentRef == "" || old.AgentHome != "" {
		return false, nil
	}
	journalPath := filepath.Join(runDir, JournalFile)
	jdata, err := os.ReadFile(journalPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("import delta-engine run: %w", err)
	}
	if journal.IsDeltaEngine(jdata) {
		events, err := journal.FromDeltaEngine(jdata, workDir)
		if err != nil {
			return false, fmt.Errorf("import delta-engine journal %s: %w", journalPath, err)
		}
		converted, err := journal.Encode(events)
		if err != nil {
			return false, err
		}
		if err := keepOriginal(journalPath, jdata); err != nil {
			return false, err
		}
		if err := atomicfile.Write(journalPath, converted, 0o644); err != nil {
			return false, fmt.Errorf("import delta-engine journal: %w", err)
		}
	}
	home := old.AgentRef
	if !filepath.IsAbs(home) {
		home = filepath.Join(workDir, home)
	}
	m := &Metadata{RunID: old.RunID, WorkspaceID: filepath.Base(workDir), AgentName: filepath.Base(home), Status: old.Status,
		CreatedAt: old.StartTime, UpdatedAt: time.Now().UTC(), EndTime: old.EndTime, InitialMessage: old.Task,
		Iterations: old.IterationsCompleted, AgentHome: home, WorkDir: workDir,
		PID: old.PID, Hostname: old.Hostname, StartTimeUnix: old.StartTimeUnix, ProcessName: old.ProcessName}
	if err := keepOriginal(filepath.Join(runDir, MetadataFile), data); err != nil {
		return false, err
	}
	if err := WriteMetadata(runDir, m); err != nil {
		return false, err
	}
	return true, nil
}

// keepOriginal saves a file's original content beside it, once.
func keepOriginal(path string, data []byte) error {
	kept := path + DeltaEngineSuffix
	if _, err := os.Stat(kept); err == nil {
		return nil
	}
	if err := atomicfile.Write(kept, data, 0o644); err != nil {
		return fmt.Errorf("keep the delta-engine original of %s: %w", filepath.Base(path), err)
	}
	return nil
}
