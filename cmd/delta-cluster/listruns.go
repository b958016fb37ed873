package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// ListRunsCmd lists the runs the cluster holds (their metadata.json as
// their holders last stored it), newest first.
type ListRunsCmd struct {
	ClusterFlags `embed:""`
	Status       string `help:"Only runs with this status: RUNNING, WAITING_FOR_INPUT, COMPLETED, FAILED or INTERRUPTED (any case)." placeholder:"STATUS"`
	Host         string `help:"Only runs on this host." placeholder:"HOST"`
	Format       string `help:"text (a table), json (an array of {run_id, status, task_summary, last_updated, workspace_path, host}), raw (the run ids, one per line) or metadata (each run's metadata.json, one a line: what delta list-runs --cluster renders)." enum:"text,json,raw,metadata" default:"text"`
}

// clusterRun is one run of the json output: delta list-runs' shape, with
// the host the run is on.
type clusterRun struct {
	RunID         string      `json:"run_id"`
	Status        runs.Status `json:"status"`
	TaskSummary   string      `json:"task_summary"`
	LastUpdated   time.Time   `json:"last_updated"`
	WorkspacePath string      `json:"workspace_path"`
	ParentRunID   string      `json:"parent_run_id,omitempty"`
	Host          string      `json:"host"`
}

// Run lists the runs.
func (c *ListRunsCmd) Run(std cli.Stdio) error {
	ctx, stop := interruptContext()
	defer stop()
	cl, err := c.connect(ctx, "delta list-runs")
	if err != nil {
		return err
	}
	defer cl.Close()
	ids, err := cl.Runs(ctx)
	if err != nil {
		return err
	}
	var all []runs.Metadata
	var raw [][]byte
	for _, id := range ids {
		data, err := cl.GetRun(ctx, id)
		if err != nil {
			continue // removed meanwhile
		}
		var m runs.Metadata
		if json.Unmarshal(data, &m) != nil || !c.keep(m) {
			continue
		}
		all, raw = append(all, m), append(raw, data)
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return all[b].UpdatedAt.Compare(all[a].UpdatedAt) })
	return c.print(std, all, raw, order)
}

func (c *ListRunsCmd) keep(m runs.Metadata) bool {
	return (c.Status == "" || strings.EqualFold(string(m.Status), c.Status)) && (c.Host == "" || m.Hostname == c.Host)
}

func (c *ListRunsCmd) print(std cli.Stdio, all []runs.Metadata, raw [][]byte, order []int) error {
	switch c.Format {
	case "metadata":
		for _, i := range order {
			data, _ := json.Marshal(json.RawMessage(raw[i])) // compact: one line
			fmt.Fprintf(std.Out, "%s\n", data)
		}
	case "raw":
		for _, i := range order {
			fmt.Fprintln(std.Out, all[i].RunID)
		}
	case "json":
		out := []clusterRun{}
		for _, i := range order {
			m := all[i]
			out = append(out, clusterRun{RunID: m.RunID, Status: m.Status, TaskSummary: summaryOf(m.InitialMessage), LastUpdated: m.UpdatedAt,
				WorkspacePath: m.WorkDir, ParentRunID: m.ParentRunID, Host: m.Hostname})
		}
		return printJSON(std, out)
	default:
		for _, i := range order {
			m := all[i]
			fmt.Fprintf(std.Out, "%-24s  %-17s  %-16s  %s\n", m.RunID, m.Status, m.Hostname, summaryOf(m.InitialMessage))
		}
	}
	return nil
}

// summaryOf is the first line of a task, cut to 60 characters.
func summaryOf(task string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(task), "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return line
}
