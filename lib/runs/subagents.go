package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Subagent is where a spawned run stands in its tree (metadata.json's
// subagent, next to parent_run_id).
type Subagent struct {
	// Depth is 1 for a child of a top-level run, 2 for its child …
	Depth int `json:"depth"`
	// MaxDepth is the limit the run inherited from its parent: it may
	// spawn runs of its own only while Depth < MaxDepth (its own
	// agent.yaml may lower the limit, never raise it).
	MaxDepth int `json:"max_depth"`
	// Dir is the directory the run's tools work in, relative to the
	// workspace ("" for the workspace itself): spawn_agent's working_dir.
	Dir string `json:"dir,omitempty"`
}

// ToolDir is the directory the run's tools work in: the workspace, or the
// subdirectory a subagent was scoped to.
func (m *Metadata) ToolDir() string {
	if m.Subagent == nil || m.Subagent.Dir == "" {
		return m.WorkDir
	}
	return filepath.Join(m.WorkDir, m.Subagent.Dir)
}

// SubagentsDir holds, under a run directory, the output of the delta-run
// processes the run started for its subagents: one CHILD_ID.log each
// (the child's live stream and result, appended at every start), read
// when a child fails before its own run directory exists.
const SubagentsDir = "io/subagents"

// SubagentLog is the log of child run childID, under its parent's run
// directory.
func SubagentLog(parentRunDir, childID string) string {
	return filepath.Join(parentRunDir, filepath.FromSlash(SubagentsDir), childID+".log")
}

// childSuffix separates a parent's id from its children's number:
// PARENT.sub1, PARENT.sub2 …
const childSuffix = ".sub"

// ChildID returns the id for the next child of run parentID in workDir:
// PARENT.subN with N one more than the highest taken, on disk or by
// reserved (ids chosen but whose run directory does not exist yet).
// Creating the run (Create) is what reserves the id on disk.
func ChildID(workDir, parentID string, reserved func(id string) bool) (string, error) {
	prefix := parentID + childSuffix
	highest := 0
	entries, err := os.ReadDir(filepath.Join(workDir, ControlDir))
	if err != nil && !os.IsNotExist(err) {
		return "", fmt.Errorf("list runs: %w", err)
	}
	for _, e := range entries {
		if n, ok := childNumber(e.Name(), prefix); ok && n > highest {
			highest = n
		}
	}
	for n := highest + 1; ; n++ {
		id := prefix + strconv.Itoa(n)
		if reserved != nil && reserved(id) {
			continue
		}
		if err := ValidateID(id); err != nil {
			return "", fmt.Errorf("run %s cannot have a child: %w", parentID, err)
		}
		return id, nil
	}
}

// ChildRunIDs lists the ids of the subagent runs of run parentID in
// workDir (PARENT.sub1, PARENT.sub2 …, in their order), from the names in
// .delta alone: cheap enough for a live view to look for new children
// every few hundred milliseconds. Confirm with the child's parent_run_id
// (Children) where it matters.
func ChildRunIDs(workDir, parentID string) ([]string, error) {
	prefix := parentID + childSuffix
	entries, err := os.ReadDir(filepath.Join(workDir, ControlDir))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	type child struct {
		id string
		n  int
	}
	var found []child
	for _, e := range entries {
		if n, ok := childNumber(e.Name(), prefix); ok && e.IsDir() {
			found = append(found, child{e.Name(), n})
		}
	}
	slices.SortFunc(found, func(a, b child) int { return a.n - b.n })
	ids := make([]string, len(found))
	for i, c := range found {
		ids[i] = c.id
	}
	return ids, nil
}

// childNumber parses N out of PREFIXN.
func childNumber(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0 && strconv.Itoa(n) == rest
}

// Children returns the runs of workDir spawned by run parentID (their
// parent_run_id), oldest first. Unreadable metadata of other runs does
// not hide them (the error names it).
func Children(workDir, parentID string) ([]Metadata, error) {
	all, err := List(workDir)
	var out []Metadata
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].ParentRunID == parentID {
			out = append(out, all[i])
		}
	}
	return out, err
}
