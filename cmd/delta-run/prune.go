package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// PruneCmd removes old finished runs.
type PruneCmd struct {
	WorkDir   string   `short:"w" name:"work-dir" help:"Workspace (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	OlderThan string   `name:"older-than" required:"" help:"Remove runs last updated longer ago than this: 90m, 36h, 7d." placeholder:"DUR"`
	Status    []string `help:"Only runs with this status (repeat or comma-separate): COMPLETED, FAILED, INTERRUPTED (default: all three). A delta mcp serve session whose process is gone is INTERRUPTED." placeholder:"S"`
	DryRun    bool     `name:"dry-run" help:"Only show what would be removed."`
	Format    string   `help:"text or json (an array of {run_id, status, updated_at, workspace, removed})." enum:"text,json" default:"text"`
}

// pruned is one run prune removed (or would remove).
type pruned struct {
	RunID     string      `json:"run_id"`
	Status    runs.Status `json:"status"`
	UpdatedAt time.Time   `json:"updated_at"`
	Workspace string      `json:"workspace"`
	Removed   bool        `json:"removed"`
}

// prunable are the statuses prune may remove: never a running or waiting run.
var prunable = []runs.Status{runs.Completed, runs.Failed, runs.Interrupted}

// Run removes the runs and prints them.
func (c *PruneCmd) Run(std cli.Stdio) error {
	age, err := parseAge(c.OlderThan)
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "for example --older-than 7d, 36h or 90m", "--older-than %q: %v", c.OlderThan, err)
	}
	statuses, err := pruneStatuses(c.Status)
	if err != nil {
		return err
	}
	dirs := []string{c.WorkDir}
	if c.WorkDir == "" {
		if dirs, err = runs.ImplicitWorkspaces("."); err != nil {
			return err
		}
	}
	cutoff := time.Now().Add(-age)
	chosen := func(m *runs.Metadata) bool { return slices.Contains(statuses, m.Status) && m.UpdatedAt.Before(cutoff) }
	out := []pruned{}
	var errs []error
	for _, d := range dirs {
		ms, _ := runs.List(d)
		for _, m := range ms {
			// A serve session whose process is gone is INTERRUPTED (the
			// janitor's cleanup), so prune takes it like any finished run.
			m = cleanUpServe(d, m, !c.DryRun, std.Err)
			if !chosen(&m) {
				continue
			}
			p := pruned{RunID: m.RunID, Status: m.Status, UpdatedAt: m.UpdatedAt, Workspace: m.WorkDir}
			if !c.DryRun {
				runDir, err := runs.Find(d, m.RunID)
				if err == nil {
					_, err = runs.Remove(runDir, chosen)
				}
				if errors.Is(err, runs.ErrNotRemovable) || errors.Is(err, runs.ErrRunBusy) {
					continue // it changed meanwhile (continued, running): left alone
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				p.Removed = true
			}
			out = append(out, p)
		}
	}
	if err := c.print(std, out); err != nil {
		return err
	}
	return errors.Join(errs...)
}

func (c *PruneCmd) print(std cli.Stdio, out []pruned) error {
	if c.Format == "json" {
		return printJSON(std, out)
	}
	verb := "removed"
	if c.DryRun {
		verb = "would remove"
	}
	for _, p := range out {
		fmt.Fprintf(std.Out, "%s %s (%s, updated %s) in %s\n", verb, p.RunID, p.Status, ago(time.Since(p.UpdatedAt)), p.Workspace)
	}
	if len(out) == 0 {
		fmt.Fprintln(std.Err, "delta-run: no run to prune")
	}
	return nil
}

// pruneStatuses reads --status (repeated or comma-separated), refusing a
// running or waiting status.
func pruneStatuses(given []string) ([]runs.Status, error) {
	if len(given) == 0 {
		return prunable, nil
	}
	var out []runs.Status
	for _, g := range given {
		for _, s := range strings.Split(g, ",") {
			st := runs.Status(strings.ToUpper(strings.TrimSpace(s)))
			if !slices.Contains(prunable, st) {
				return nil, cli.Errorf(cli.ExitUsage, "prune removes COMPLETED, FAILED and INTERRUPTED runs; running and waiting runs are never removed", "--status %q cannot be pruned", s)
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// parseAge is a Go duration, or a number of days with d.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("not a number of days")
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d < 0 {
		err = fmt.Errorf("negative")
	}
	return d, err
}
