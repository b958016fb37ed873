package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/runs"
)

// deliver runs a workflow task under its lease: one delivery to a
// workflow's agent, made by `delta-workflow deliver` in the workflow's
// shared workspace. Unlike a batch task it has no attempts of its own: a
// worker that dies leaves the agent's run where it was, and the next
// delivery of the task continues it (the controller counts the
// delivery's attempts).
func (w *worker) deliver(m jetstream.Msg, t cluster.Task, lease *cluster.Lease) {
	wf := t.Workflow
	w.logf("task %s of workflow %s, instance %s: delivery to %s", t.ID, wf.Workflow, wf.Instance, wf.Agent)
	ctx, cancel := context.WithCancel(w.stopped)
	defer cancel()
	go func() {
		select {
		case <-lease.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	go heartbeat(ctx, m, w.ackWait/3)
	r, why := w.runDeliver(ctx, t)
	if why != nil {
		if lost := lease.Err(); lost != nil {
			why = fmt.Errorf("%v (the task's lease was lost: %v)", why, lost)
		}
		w.handBack(m, t, why)
		return
	}
	sctx, done := context.WithTimeout(context.Background(), opTimeout)
	defer done()
	if _, err := w.c.PublishResult(sctx, r); err != nil {
		w.handBack(m, t, err)
		return
	}
	if err := m.DoubleAck(sctx); err != nil {
		w.logf("task %s of batch %s: ack: %v (its result is stored; a redelivery only acks it)", t.ID, t.Batch, err)
	}
	w.logf("task %s of batch %s: %s (run %s)", t.ID, t.Batch, r.Status, r.RunID)
}

// runDeliver runs delta-workflow deliver for t: the task's result, or why
// the task goes back to the queue.
func (w *worker) runDeliver(ctx context.Context, t cluster.Task) (cluster.Result, error) {
	wf := t.Workflow
	run := wf.Agent + "." + wf.Instance
	r := cluster.Result{Batch: t.Batch, Task: t.ID, RunID: run, Host: w.host, Worker: w.name, Attempt: 1}
	bin, err := cli.FindCommand("delta-workflow")
	if err != nil {
		r.Status, r.Permanent, r.Error = cluster.ResultFailed, true, "this worker has no delta-workflow: install Delta's commands together"
		return r, nil
	}
	body, _ := json.Marshal(t)
	res, err := execute.Run(ctx, execute.Spec{
		Argv: []string{bin, "deliver"}, Stdin: body, Dir: wf.Workspace, Env: w.childEnv(t), KillGrace: childGrace + 5*time.Second,
		StderrFile: filepath.Join(w.root, t.Batch, t.ID+".log"), MaxCapture: 16 << 20,
	})
	switch {
	case err != nil:
		return r, fmt.Errorf("start delta-workflow deliver: %w", err)
	case res.Canceled:
		return r, fmt.Errorf("the delivery to %s was interrupted (the worker is stopping)", wf.Agent)
	case res.Signal != "":
		return r, fmt.Errorf("delta-workflow deliver killed by %s", res.Signal)
	}
	var out cluster.Delivered
	if jerr := json.Unmarshal([]byte(res.Stdout), &out); jerr != nil || out.Outcome == "" {
		if res.ExitCode == runs.ExitConfig {
			r.Status, r.Permanent, r.Error = cluster.ResultFailed, true, "configuration error (exit 126): "+lastLines(res.Stderr)
			return r, nil
		}
		return r, fmt.Errorf("delta-workflow deliver exited %d without its outcome: %s", res.ExitCode, lastLines(res.Stderr))
	}
	if out.Outcome == "failed" && strings.Contains(out.Error, " is held by ") {
		// The run's cluster lease, held by the delta-run of a worker that
		// died: it lapses within the lease TTL, then the task runs.
		return r, fmt.Errorf("the run is still held by its previous worker's lease: %s", out.Error)
	}
	r.Error, r.Permanent = out.Error, out.Permanent
	r.Result, _ = json.Marshal(out.Answer)
	switch out.Outcome {
	case "succeeded":
		r.Status = cluster.ResultCompleted
	case "waiting":
		r.Status = cluster.ResultWaiting
	case "interrupted":
		if res.ExitCode == runs.ExitInterrupted {
			return r, fmt.Errorf("the delivery to %s was interrupted", wf.Agent)
		}
		r.Status = cluster.ResultInterrupted // stopped from outside (delta stop)
	default:
		r.Status = cluster.ResultFailed
	}
	return r, nil
}
