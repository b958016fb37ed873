package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// exitNotRunning is stop's exit code for a run that is not running: not
// a failure of stop, but a different outcome a script may test.
const exitNotRunning = 3

// StopCmd stops running runs the way Ctrl-C does.
type StopCmd struct {
	RunID   string        `name:"run-id" help:"The run to stop." placeholder:"ID"`
	All     bool          `help:"Stop every running run of the workspace(s)."`
	WorkDir string        `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Timeout time.Duration `default:"10s" help:"How long to wait for a run to stop after SIGINT."`
	Force   bool          `help:"When a run has not stopped after --timeout, kill it (SIGKILL; its tools die with it) and mark it INTERRUPTED."`

	// clusterFlags: the run is on any host of a cluster.
	clusterFlags `embed:""`
}

// stopResult is what stop prints for each run, as JSON.
type stopResult struct {
	RunID     string      `json:"run_id"`
	Workspace string      `json:"workspace"`
	PID       int         `json:"pid"`
	Status    runs.Status `json:"status"`
	Signal    string      `json:"signal"`
	WaitedMS  int64       `json:"waited_ms"`
}

// Run stops the run(s) and prints their outcome.
func (c *StopCmd) Run(std cli.Stdio) error {
	if c.All == (c.RunID != "") {
		return cli.Errorf(cli.ExitUsage, "stop one run with --run-id ID (see delta list-runs), or all running runs with --all", "give --run-id or --all")
	}
	if c.on() {
		return c.stopThroughCluster(std)
	}
	if c.All {
		return c.stopAll(std)
	}
	_, ws, runDir, err := locateRun(c.RunID, false, c.WorkDir)
	if err != nil {
		return err
	}
	meta, err := runs.ReadMetadata(runDir)
	if err != nil {
		return err
	}
	res, err := c.stop(meta, runDir)
	if err != nil {
		return stopError(err, meta, ws)
	}
	return printJSON(std, res)
}

// stopAll stops every running run of the workspace(s) at once.
func (c *StopCmd) stopAll(std cli.Stdio) error {
	dirs := []string{c.WorkDir}
	if c.WorkDir == "" {
		var err error
		if dirs, err = runs.ImplicitWorkspaces("."); err != nil {
			return err
		}
	}
	var live []runs.Metadata
	for _, d := range dirs {
		ms, _ := runs.List(d)
		for _, m := range ms {
			if m.Status == runs.Running && !runs.Stale(&m) {
				live = append(live, m)
			}
		}
	}
	if len(live) == 0 {
		return cli.Errorf(exitNotRunning, "", "no running run in %s", absOr(orDot(c.WorkDir)))
	}
	results := make([]stopResult, len(live))
	errs := make([]error, len(live))
	var wg sync.WaitGroup
	for i := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := &live[i]
			runDir, err := runs.Find(m.WorkDir, m.RunID)
			if err == nil {
				results[i], err = c.stop(m, runDir)
			}
			if err != nil {
				errs[i] = fmt.Errorf("run %s: %w", m.RunID, err)
			}
		}()
	}
	wg.Wait()
	var stopped []stopResult
	for i, r := range results {
		if errs[i] == nil {
			stopped = append(stopped, r)
		}
	}
	if err := printJSON(std, stopped); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return cli.WithCode(runs.ExitFailed, "", err)
	}
	return nil
}

// stop interrupts one run and waits for it to end, escalating to SIGKILL
// with --force (runs.Interrupt).
func (c *StopCmd) stop(meta *runs.Metadata, runDir string) (stopResult, error) {
	res := stopResult{RunID: meta.RunID, Workspace: meta.WorkDir, PID: meta.PID}
	started := time.Now()
	sig, err := runs.Interrupt(meta, runDir, c.Timeout, c.Force)
	res.Signal = sig
	if err != nil {
		return res, err
	}
	res.WaitedMS = time.Since(started).Milliseconds()
	if m, err := runs.ReadMetadata(runDir); err == nil {
		res.Status = m.Status
	}
	return res, nil
}

// stopError turns stop's failures into messages that say what to do.
func stopError(err error, meta *runs.Metadata, ws string) error {
	switch {
	case errors.Is(err, runs.ErrNotRunning):
		return cli.WithCode(exitNotRunning, notRunningHint(meta, ws), err)
	case errors.Is(err, runs.ErrOtherHost):
		return cli.WithCode(runs.ExitFailed, "stop it on that host", err)
	case errors.Is(err, runs.ErrStopTimeout):
		return cli.WithCode(runs.ExitFailed, fmt.Sprintf("wait longer (--timeout 60s), or kill it: delta stop --run-id %s -w %s --force", meta.RunID, ws),
			fmt.Errorf("run %s: %w", meta.RunID, err))
	}
	return err
}

// notRunningHint is what to do with a run stop found not running: continue
// it, unless it completed or is a delta mcp serve session, which continue
// refuses (runs.Metadata.Resumable).
func notRunningHint(meta *runs.Metadata, ws string) string {
	switch {
	case meta.Status == runs.Completed:
		return ""
	case meta.Resumable():
		return fmt.Sprintf("continue it with: delta continue --run-id %s -w %s", meta.RunID, ws)
	case meta.Status == runs.Running:
		return "it is a delta mcp serve session that was interrupted (its process is gone), which continue cannot take up: delta list-runs marks it INTERRUPTED and delta prune removes it"
	}
	return "it is a delta mcp serve session that has ended, which continue cannot take up: delta prune removes it"
}

func printJSON(std cli.Stdio, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(std.Out, "%s\n", data)
	return err
}
