package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// ListRunsCmd lists a workspace's runs (seeds/000 §2.6.4).
type ListRunsCmd struct {
	WorkDir   string `short:"w" name:"work-dir" help:"Workspace (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Resumable bool   `help:"Only runs continue can resume: INTERRUPTED, WAITING_FOR_INPUT, FAILED, COMPLETED, and RUNNING (stale) — a RUNNING run whose process is gone; never a delta mcp serve session."`
	Status    string `help:"Only runs with this status: RUNNING, WAITING_FOR_INPUT, COMPLETED, FAILED or INTERRUPTED (any case)." placeholder:"STATUS"`
	First     bool   `help:"Only the most recent run (text: just its run id, for $(…))."`
	Format    string `help:"text (a run's subagents indented under it), json (an array of {run_id, status, task_summary, last_updated, workspace_path}, with parent_run_id for a subagent) or raw (the run ids, one per line)." enum:"text,json,raw" default:"text"`

	// clusterFlags: the run is on any host of a cluster.
	clusterFlags `embed:""`
}

// allStatuses are the values of --status.
var allStatuses = []runs.Status{runs.Running, runs.WaitingForInput, runs.Completed, runs.Failed, runs.Interrupted}

// runSummary is one entry of the JSON output.
type runSummary struct {
	RunID       string      `json:"run_id"`
	Status      runs.Status `json:"status"`
	TaskSummary string      `json:"task_summary"`
	LastUpdated time.Time   `json:"last_updated"`
	// WorkspacePath is the run's workspace (for -w of continue).
	WorkspacePath string `json:"workspace_path"`
	// Stale marks a RUNNING run whose process is gone (resumable).
	Stale bool `json:"stale,omitempty"`
	// Corrupt says what is wrong with a journal changed outside Delta
	// (continue refuses such a run).
	Corrupt string `json:"corrupt,omitempty"`
	// WaitingFor is "approval" for a run waiting for a tool call to be
	// approved (else a WAITING_FOR_INPUT run waits for an answer).
	WaitingFor string `json:"waiting_for,omitempty"`
	// ParentRunID is the run that spawned this one (subagents).
	ParentRunID string `json:"parent_run_id,omitempty"`
}

// Run lists the runs, newest first (runs.SortNewestFirst).
func (c *ListRunsCmd) Run(std cli.Stdio) error {
	if c.Status != "" && !slices.ContainsFunc(allStatuses, func(s runs.Status) bool { return strings.EqualFold(string(s), c.Status) }) {
		return cli.Errorf(cli.ExitUsage, "", "--status must be one of RUNNING, WAITING_FOR_INPUT, COMPLETED, FAILED, INTERRUPTED, not %q", c.Status)
	}
	all, err := c.runsToList(std)
	if err != nil && len(all) == 0 {
		return err
	}
	if err != nil {
		fmt.Fprintf(std.Err, "delta-run: warning: %v\n", err)
	}
	var out []runSummary
	for _, m := range all {
		if c.Status != "" && !strings.EqualFold(string(m.Status), c.Status) {
			continue
		}
		// A RUNNING run whose process is gone (kill -9, a crash) is what
		// continue's janitor turns into INTERRUPTED: it is resumable.
		stale := runs.Stale(&m)
		if c.Resumable && (m.Status == runs.Running && !stale || !m.Resumable()) {
			continue
		}
		out = append(out, runSummary{RunID: m.RunID, Status: m.Status, TaskSummary: summary(m.InitialMessage), LastUpdated: m.UpdatedAt,
			WorkspacePath: m.WorkDir, Stale: stale, Corrupt: corruption(m), WaitingFor: waitingFor(m), ParentRunID: m.ParentRunID})
		if c.First {
			break
		}
	}
	if c.Format == "raw" {
		for _, r := range out {
			fmt.Fprintln(std.Out, r.RunID)
		}
		return nil
	}
	if c.Format == "json" {
		if out == nil {
			out = []runSummary{}
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(std.Out, "%s\n", data)
	} else if c.First {
		if len(out) == 0 {
			return cli.Errorf(runs.ExitFailed, "", "no matching run in %s", absOr(orDot(c.WorkDir)))
		}
		fmt.Fprintln(std.Out, out[0].RunID)
	} else {
		for _, n := range tree(out) {
			r := n.run
			status := string(r.Status)
			if r.Stale {
				status += " (stale)"
			}
			if r.WaitingFor != "" {
				status += " (" + r.WaitingFor + ")"
			}
			if r.Corrupt != "" {
				status += " (corrupt)"
				fmt.Fprintf(std.Err, "delta-run: warning: run %s: journal %s\n", r.RunID, r.Corrupt)
			}
			fmt.Fprintf(std.Out, "%-24s  %-17s  %-32s  %s\n", strings.Repeat("  ", n.depth)+r.RunID, status, quote(r.TaskSummary), ago(time.Since(r.LastUpdated)))
		}
	}
	return nil
}

// corruption is what breaks the journal of run m ("" when it reads): a
// line changed outside Delta. A torn last line is not corruption: continue
// repairs it.
func corruption(m runs.Metadata) string {
	_, err := journal.Check(filepath.Join(m.Dir(), runs.JournalFile))
	if err == nil || !errors.Is(err, journal.ErrCorrupt) {
		return ""
	}
	return err.Error()
}

// list reads the runs of -w, or of the implicit workspaces, newest first,
// cleaning up on the way the delta mcp serve sessions whose process is
// gone (cleanUpServe).
func (c *ListRunsCmd) list(stderr io.Writer) ([]runs.Metadata, error) {
	dirs := []string{c.WorkDir}
	if c.WorkDir != "" {
		if fi, err := os.Stat(c.WorkDir); err != nil || !fi.IsDir() {
			return nil, cli.Errorf(runs.ExitFailed, "give the workspace a run was started in (delta run -w DIR)", "no workspace directory %s", c.WorkDir)
		}
	}
	if c.WorkDir == "" {
		var err error
		if dirs, err = runs.ImplicitWorkspaces("."); err != nil {
			return nil, err
		}
	}
	if !slices.ContainsFunc(dirs, func(d string) bool {
		fi, err := os.Stat(filepath.Join(orDot(d), runs.ControlDir))
		return err == nil && fi.IsDir()
	}) {
		return nil, cli.Errorf(runs.ExitFailed, "list the runs of a workspace with -w DIR, or run list-runs in an agent directory (its workspaces W001 …)",
			"no runs here: %s has no %s directory", absOr(orDot(c.WorkDir)), runs.ControlDir)
	}
	var all []runs.Metadata
	var errs []error
	for _, d := range dirs {
		ms, err := runs.List(d)
		if err != nil {
			errs = append(errs, err)
		}
		for i := range ms {
			ms[i] = cleanUpServe(d, ms[i], true, stderr)
		}
		all = append(all, ms...)
	}
	// runs.List orders one workspace; merge them the same way.
	runs.SortNewestFirst(all)
	return all, errors.Join(errs...)
}

// cleanUpServe is continue's janitor for a delta mcp serve session of
// workspace ws, which continue refuses (runs.CleanUpServe): when its
// process is gone (kill -9, a crash) the session becomes INTERRUPTED, as
// a crashed run does, so that list-runs shows it so and prune removes it
// like any finished run. A live session is never touched. It returns m as
// it now stands; with write false (prune --dry-run), or when the change
// cannot be written (a workspace we may not write, the run held), only
// the returned copy is changed.
func cleanUpServe(ws string, m runs.Metadata, write bool, stderr io.Writer) runs.Metadata {
	if !m.MCPServe || m.Status != runs.Running {
		return m
	}
	runDir, err := runs.Find(ws, m.RunID)
	if err != nil {
		return m
	}
	if write {
		got, cleaned, err := runs.CleanUpServe(runDir)
		if err == nil {
			if cleaned {
				fmt.Fprintf(stderr, "[Janitor] Cleaned up orphaned delta mcp serve session %s: process %d no longer exists\n", m.RunID, m.PID)
			}
			return *got
		}
	}
	runs.ServeJanitor(&m, runDir)
	return m
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// summary is the first line of a task, shortened.
func summary(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

func quote(s string) string { return `"` + s + `"` }

// ago prints a coarse age: 30s ago, 2m ago, 3h ago, 4d ago.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// waitingFor is "approval" for a run waiting for an approval.
func waitingFor(m runs.Metadata) string {
	if m.Status == runs.WaitingForInput && pendingApproval(m.Dir()) {
		return "approval"
	}
	return ""
}

// treeNode is a run in list-runs' text output, at its depth below the
// listed run that spawned it.
type treeNode struct {
	run   runSummary
	depth int
}

// tree orders runs for the text listing: each run followed by the runs it
// spawned (subagents), indented, in the order they were spawned; runs whose parent is
// not listed stay where they were.
func tree(list []runSummary) []treeNode {
	listed := map[string]bool{}
	kids := map[string][]runSummary{}
	for _, r := range list {
		listed[r.WorkspacePath+"\x00"+r.RunID] = true
	}
	var roots []runSummary
	for _, r := range list {
		if r.ParentRunID != "" && listed[r.WorkspacePath+"\x00"+r.ParentRunID] {
			key := r.WorkspacePath + "\x00" + r.ParentRunID
			kids[key] = append(kids[key], r)
			continue
		}
		roots = append(roots, r)
	}
	var out []treeNode
	seen := map[string]bool{}
	var add func(r runSummary, depth int)
	add = func(r runSummary, depth int) {
		if seen[r.WorkspacePath+"\x00"+r.RunID] {
			return
		}
		seen[r.WorkspacePath+"\x00"+r.RunID] = true
		out = append(out, treeNode{r, depth})
		ch := kids[r.WorkspacePath+"\x00"+r.RunID]
		// In the order they were spawned: PARENT.sub1, .sub2 … .sub10.
		slices.SortFunc(ch, func(a, b runSummary) int {
			return cmp.Or(cmp.Compare(len(a.RunID), len(b.RunID)), strings.Compare(a.RunID, b.RunID))
		})
		for _, c := range ch {
			add(c, depth+1)
		}
	}
	for _, r := range roots {
		add(r, 0)
	}
	for _, r := range list { // parents edited into a cycle: shown flat
		add(r, 0)
	}
	return out
}
