package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
)

// DeliverCmd is what a delta worker runs for a workflow task: one
// delivery to an agent on a queue, the task (JSON, as the worker received
// it) on stdin, the outcome (JSON) on stdout.
type DeliverCmd struct{}

// Run makes progress on the delivery, exactly as the controller does for
// an agent of its own host, with two differences: delta-run dies with
// this process (a worker that dies leaves the run to the next, which
// continues it), and a run marked running on another host is taken over
// (the worker holds the task's lease, which the other lost).
func (c *DeliverCmd) Run(std cli.Stdio) error {
	data, err := io.ReadAll(std.In)
	if err != nil {
		return err
	}
	var t cluster.Task
	if err := json.Unmarshal(data, &t); err != nil || t.Workflow == nil {
		return cli.Errorf(cli.ExitUsage, "deliver is run by delta worker, with a workflow task on stdin", "stdin holds no workflow task (%v)", err)
	}
	w := t.Workflow
	deltaRun, err := cli.FindCommand("delta-run")
	if err != nil {
		return cli.Errorf(runs.ExitConfig, "install Delta's commands together (make install), or put delta-run on PATH", "delta-run not found: %v", err)
	}
	for _, dir := range []string{w.Workspace, w.InstanceDir} {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return cli.Errorf(runs.ExitConfig, "workspace_sync: shared needs the workflow's workspace mounted at the same path on every worker of the queue",
				"the workflow's directory %s is not here (%v)", dir, err)
		}
	}
	b := &workflow.DeltaBackend{DeltaRun: deltaRun, Workspace: w.Workspace, Instance: w.Instance, InstanceDir: w.InstanceDir,
		AgentDir: func(*workflow.AgentDef) string { return w.AgentDir }, Context: w.Context, Poll: time.Second,
		Guarded: true, TakeOver: true}
	if url := os.Getenv(cluster.EnvURL); url != "" {
		b.Cluster = &workflow.ClusterBoard{URL: url, Creds: os.Getenv("DELTA_CLUSTER_CREDS")}
	}
	log, err := os.OpenFile(filepath.Join(w.InstanceDir, workflow.AgentsDir, w.Agent, "run.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("the agent's log: %w", err)
	}
	defer log.Close()
	ctx, stop := signalContext()
	defer stop()
	job := workflow.Job{Agent: &workflow.AgentDef{Name: w.Agent, Backend: workflow.BackendDelta}, Prompt: t.Message,
		Delivery: &workflow.Delivery{UpTo: w.UpTo, Mark: w.Mark, Attempt: w.Attempt}, Log: io.MultiWriter(log, std.Err)}
	res := b.Run(ctx, job)
	out := cluster.Delivered{Outcome: res.Outcome.String(), Error: res.Err, Answer: res.Answer, Permanent: res.Permanent, Started: res.Started}
	enc := json.NewEncoder(std.Out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	if res.Outcome == workflow.Interrupted && ctx.Err() != nil {
		return &cli.Error{Code: runs.ExitInterrupted, Silent: true, Err: errors.New("interrupted")}
	}
	return nil
}
