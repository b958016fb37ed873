package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// StopCmd stops a run anywhere in the cluster, as Ctrl-C does: its
// holder's mirror interrupts it on its host.
type StopCmd struct {
	ClusterFlags `embed:""`
	RunID        string        `name:"run-id" required:"" help:"The run to stop." placeholder:"ID"`
	Timeout      time.Duration `default:"10s" help:"How long to wait for the run to stop after the interrupt."`
	Force        bool          `help:"When the run has not stopped after --timeout, kill it on its host (SIGKILL) and mark it INTERRUPTED."`
}

// stopResult is what stop prints: delta stop's shape.
type stopResult struct {
	RunID     string      `json:"run_id"`
	Workspace string      `json:"workspace"`
	PID       int         `json:"pid"`
	Status    runs.Status `json:"status"`
	Signal    string      `json:"signal"`
	WaitedMS  int64       `json:"waited_ms"`
	Host      string      `json:"host"`
}

// Run asks the run's holder to stop it and waits until the cluster's
// metadata says it stopped.
func (c *StopCmd) Run(std cli.Stdio) error {
	ctx, stop := interruptContext()
	defer stop()
	cl, err := c.connect(ctx, "delta stop "+c.RunID)
	if err != nil {
		return err
	}
	defer cl.Close()
	started := time.Now()
	res := stopResult{RunID: c.RunID, Signal: "SIGINT"}
	if err := c.ask(ctx, cl, "stop", &res); err != nil {
		return err
	}
	status, err := waitStopped(ctx, cl, c.RunID, c.Timeout)
	if err != nil && c.Force {
		res.Signal = "SIGKILL"
		if err := c.ask(ctx, cl, "kill", &res); err != nil {
			return err
		}
		status, err = waitStopped(ctx, cl, c.RunID, c.Timeout)
	}
	if err != nil {
		return cli.WithCode(runs.ExitFailed, fmt.Sprintf("wait longer (--timeout 60s), or kill it: delta stop --run-id %s --cluster URL --force", c.RunID), err)
	}
	res.Status, res.WaitedMS = status.Status, time.Since(started).Milliseconds()
	res.Workspace, res.PID = status.WorkDir, status.PID
	return printJSON(std, res)
}

// ask sends op to the run's holder; nobody holding it is stop's exit 3.
func (c *StopCmd) ask(ctx context.Context, cl *cluster.Cluster, op string, res *stopResult) error {
	reply, err := cl.Control(ctx, c.RunID, cluster.ControlRequest{Op: op}, 10*time.Second)
	if errors.Is(err, cluster.ErrNoHolder) {
		return cli.WithCode(exitNotRunning, fmt.Sprintf("continue it on the host it ran on: delta continue --run-id %s --cluster URL", c.RunID),
			fmt.Errorf("run %s is not running: %w", c.RunID, err))
	}
	if err != nil {
		return cli.WithCode(runs.ExitFailed, "", err)
	}
	res.Host = reply.Host
	if !reply.OK {
		code := runs.ExitFailed
		if reply.Status != "" && reply.Status != string(runs.Running) {
			code = exitNotRunning
		}
		return cli.WithCode(code, "", fmt.Errorf("run %s on %s: %s", c.RunID, reply.Host, reply.Error))
	}
	return nil
}

// waitStopped polls the run's metadata in the cluster until it is no
// longer RUNNING, for up to timeout.
func waitStopped(ctx context.Context, cl *cluster.Cluster, run string, timeout time.Duration) (runs.Metadata, error) {
	deadline := time.Now().Add(timeout)
	for {
		var st runs.Metadata
		data, err := cl.GetRun(ctx, run)
		if err == nil {
			err = json.Unmarshal(data, &st)
		}
		if err == nil && st.Status != runs.Running {
			return st, nil
		}
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("run %s: %w: it did not stop within %s of the interrupt", run, runs.ErrStopTimeout, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
