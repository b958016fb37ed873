package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// PsCmd is delta ps: every agent in one table.
type PsCmd struct {
	WorkDir string `short:"w" name:"work-dir" help:"Workspace whose runs are listed (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	JSON    bool   `help:"Print a JSON array of {name, source, host, status, updated, run_id, workspace}."`

	// clusterFlags: also the runs the cluster holds.
	clusterFlags `embed:""`
}

// Help is ps's description in --help and the man page.
func (*PsCmd) Help() string {
	return `ps shows every agent in one table, newest first: the runs of the workspace (a subagent's source names its parent), the agents of every workflow instance this user started (delta workflow list --all: NAME is AGENT@INSTANCE, SOURCE the workflow file; HOST, STATUS and AGE are those of the agent's run, so an agent on a cluster queue shows the host of the worker running it, and one without a run yet its controller's status), and with --cluster (or DELTA_CLUSTER) the runs the cluster holds, with the host each runs on (the cluster's record of a run, when newer, gives its status and age). A run seen in more than one place is one row. Columns: NAME, SOURCE, HOST, STATUS, AGE (since its last change). A source that cannot be read (no delta-workflow installed, a cluster that does not answer) is a warning on stderr; the others are still shown.`
}

// psRow is one agent of ps.
type psRow struct {
	Name      string    `json:"name"`
	Source    string    `json:"source"`
	Host      string    `json:"host,omitempty"`
	Status    string    `json:"status"`
	Updated   time.Time `json:"updated,omitzero"`
	RunID     string    `json:"run_id,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	// instanceDir is a workflow agent's instance directory, inside the
	// workspace its run is in (unless --dir put it elsewhere).
	instanceDir string
}

// Run gathers the rows and prints them.
func (c *PsCmd) Run(std cli.Stdio) error {
	rows := c.localRows(std.Err)
	rows = mergeRows(rows, workflowRows(std.Err))
	if c.on() {
		rows = mergeRows(rows, c.clusterRows(std.Err))
	}
	slices.SortStableFunc(rows, func(a, b psRow) int { return b.Updated.Compare(a.Updated) })
	if c.JSON {
		if rows == nil {
			rows = []psRow{}
		}
		data, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(std.Out, "%s\n", data)
		return err
	}
	tw := tabwriter.NewWriter(std.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tHOST\tSTATUS\tAGE")
	for _, r := range rows {
		age := "-"
		if !r.Updated.IsZero() {
			age = ago(time.Since(r.Updated))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Source, orDash(r.Host), r.Status, age)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// localRows are the workspace's runs; a workspace without runs has none.
func (c *PsCmd) localRows(stderr io.Writer) []psRow {
	all, err := (&ListRunsCmd{WorkDir: c.WorkDir}).list(stderr)
	if err != nil && len(all) == 0 {
		if c.WorkDir != "" {
			fmt.Fprintf(stderr, "delta-run: warning: %v\n", err)
		}
		return nil
	}
	var rows []psRow
	for _, m := range all {
		source := "run"
		if m.ParentRunID != "" {
			source = "subagent of " + m.ParentRunID
		}
		rows = append(rows, psRow{Name: m.RunID, Source: source, Host: m.Hostname, Status: runStatus(m), Updated: m.UpdatedAt, RunID: m.RunID, Workspace: m.WorkDir})
	}
	return rows
}

// runStatus is a run's STATUS: its status, and why it is stale or what
// it waits for.
func runStatus(m runs.Metadata) string {
	status := string(m.Status)
	if runs.Stale(&m) {
		status += " (stale)"
	}
	if w := waitingFor(m); w != "" {
		status += " (" + w + ")"
	}
	return status
}

// workflowAgentRow is what delta workflow list --json prints per agent.
type workflowAgentRow struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Status string `json:"status"`
	RunID  string `json:"run_id"`
	Dir    string `json:"dir"`
	// Workspace is where the agents' runs are (for agents on a cluster
	// queue, the directory every worker of the queue mounts).
	Workspace string `json:"workspace"`
}

// workflowRows are the agents of every workflow instance this user
// started, from delta-workflow list --all --json.
func workflowRows(stderr io.Writer) []psRow {
	bin, err := cli.FindCommand("delta-workflow")
	if err != nil {
		return nil // no workflows without it
	}
	var agents []workflowAgentRow
	if !childJSON(stderr, exec.Command(bin, "list", "--all", "--json"), &agents) {
		return nil
	}
	host, _ := os.Hostname()
	var rows []psRow
	for _, a := range agents {
		r := psRow{Name: a.Name, Source: "workflow " + a.Source, Host: host, Status: a.Status, RunID: a.RunID, instanceDir: a.Dir}
		agentRun(&r, a)
		rows = append(rows, r)
	}
	return rows
}

// agentRun completes a workflow agent's row from its run: the host that
// runs it (a cluster worker's, for an agent on a queue, not the
// controller's), its status and its last change. An agent without a run
// yet keeps its controller's status.
func agentRun(r *psRow, a workflowAgentRow) {
	if a.RunID == "" || a.Workspace == "" {
		return
	}
	dir, err := runs.Find(a.Workspace, a.RunID)
	if err != nil {
		return
	}
	m, err := runs.ReadMetadata(dir)
	if err != nil {
		return
	}
	r.Host, r.Status, r.Updated, r.Workspace = m.Hostname, runStatus(*m), m.UpdatedAt, a.Workspace
}

// clusterRow is what delta-cluster list-runs --format json prints per run.
type clusterRow struct {
	RunID       string    `json:"run_id"`
	Status      string    `json:"status"`
	LastUpdated time.Time `json:"last_updated"`
	Workspace   string    `json:"workspace_path"`
	Host        string    `json:"host"`
}

// clusterRows are the runs the cluster holds.
func (c *PsCmd) clusterRows(stderr io.Writer) []psRow {
	cmd, err := c.clusterCommand("list-runs", "--format", "json")
	if err != nil {
		fmt.Fprintf(stderr, "delta-run: warning: %v\n", err)
		return nil
	}
	var got []clusterRow
	if !childJSON(stderr, cmd, &got) {
		return nil
	}
	var rows []psRow
	for _, r := range got {
		rows = append(rows, psRow{Name: r.RunID, Source: "cluster", Host: r.Host, Status: r.Status, Updated: r.LastUpdated, RunID: r.RunID, Workspace: r.Workspace})
	}
	return rows
}

// childJSON runs cmd and decodes its stdout into v; a failure is a
// warning (the child's own message is on stderr).
func childJSON(stderr io.Writer, cmd *exec.Cmd, v any) bool {
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err == nil {
		err = json.Unmarshal(out, v)
	}
	if err != nil {
		fmt.Fprintf(stderr, "delta-run: warning: %s: %v\n", strings.Join(cmd.Args, " "), err)
		return false
	}
	return true
}

// sameRun: a workflow agent's row is the run of its id in the workspace
// that holds its instance (run ids repeat across workspaces); a cluster's
// run id is the one run of that id.
func sameRun(local, m psRow) bool {
	if m.instanceDir == "" || local.Workspace == "" {
		return true
	}
	return strings.HasPrefix(m.instanceDir, local.Workspace+string(os.PathSeparator))
}

// mergeRows adds more to rows: a row whose run is already listed
// completes it (a workflow agent's name and source, the cluster's host)
// instead of being listed twice.
func mergeRows(rows, more []psRow) []psRow {
	for _, m := range more {
		i := slices.IndexFunc(rows, func(r psRow) bool { return m.RunID != "" && r.RunID == m.RunID && sameRun(r, m) })
		if i < 0 {
			rows = append(rows, m)
			continue
		}
		r := &rows[i]
		if strings.HasPrefix(m.Source, "workflow ") {
			r.Name, r.Source = m.Name, m.Source
		}
		if m.Source == "cluster" && m.Host != "" {
			r.Host = m.Host
		}
		if m.Source == "cluster" && m.Updated.After(r.Updated) {
			// The cluster's record is the holder's, newer than the
			// files here (another host's copy, or none).
			r.Status, r.Updated = m.Status, m.Updated
		}
	}
	return rows
}
