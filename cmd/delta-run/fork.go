package main

import (
	"errors"
	"fmt"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// ForkCmd starts a new run from a prefix of another's journal.
type ForkCmd struct {
	RunID    string `name:"run-id" help:"The run to fork." placeholder:"ID"`
	Last     bool   `help:"Fork the latest run of the workspace (the first list-runs shows)."`
	WorkDir  string `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	At       int64  `help:"Keep the journal up to this event (its seq; the end of an iteration). Default: the whole journal." placeholder:"SEQ"`
	NewRunID string `name:"new-run-id" help:"The new run's id (default: the original's with -fork1, -fork2 …)." placeholder:"ID"`
}

// forkResult is what fork prints.
type forkResult struct {
	RunID      string           `json:"run_id"`
	Status     runs.Status      `json:"status"`
	Workspace  string           `json:"workspace"`
	ForkedFrom *runs.ForkOrigin `json:"forked_from"`
}

// Run forks the run.
func (c *ForkCmd) Run(std cli.Stdio) error {
	id, ws, runDir, err := locateRun(c.RunID, c.Last, c.WorkDir)
	if err != nil {
		return err
	}
	newID := c.NewRunID
	if newID == "" {
		newID = freeForkID(ws, id)
	} else if err := runs.ValidateID(newID); err != nil {
		return cli.WithCode(runs.ExitConfig, "", err)
	}
	m, _, err := runs.Fork(runDir, c.At, newID)
	switch {
	case errors.Is(err, runs.ErrForkPoint):
		return cli.WithCode(cli.ExitUsage, fmt.Sprintf("see the events with: delta log --run-id %s -w %s --format json", id, ws), err)
	case errors.Is(err, runs.ErrRunExists):
		return cli.WithCode(runs.ExitConfig, "choose another --new-run-id", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(std.Err, "delta-run: forked %s at seq %d as %s; go on with: delta continue --run-id %s -w %s -m \"…\"\n", id, m.ForkedFrom.Seq, newID, newID, ws)
	return printJSON(std, forkResult{RunID: m.RunID, Status: m.Status, Workspace: m.WorkDir, ForkedFrom: m.ForkedFrom})
}

// freeForkID is the first of ID-fork1, ID-fork2 … the workspace does not
// hold.
func freeForkID(ws, id string) string {
	for n := 1; ; n++ {
		candidate := fmt.Sprintf("%s-fork%d", id, n)
		if _, err := runs.Find(ws, candidate); errors.Is(err, runs.ErrNoRun) {
			return candidate
		}
	}
}
