package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
)

// queueBackend runs an agent's deliveries on the workers of its queue:
// each attempt is a task (cluster.WorkflowTask) whose result the
// controller waits for. The task's id is recorded in the delivery before
// it is queued, so a controller that takes over waits for the same task
// instead of queuing a second one, and a task queued twice is run once
// (the queue drops a duplicate; a worker acks a task that has a result).
type queueBackend struct {
	cl    *cluster.Cluster
	q     workflow.Queued
	batch string
	// poll is how often the task's result is looked for.
	poll time.Duration
}

func newQueueBackend(cl *cluster.Cluster, q workflow.Queued) *queueBackend {
	return &queueBackend{cl: cl, q: q, batch: cluster.WorkflowBatch(q.Local.Instance, q.Created.Unix()), poll: 500 * time.Millisecond}
}

// Mark and Usage read the agent's run in the shared workspace.
func (b *queueBackend) Mark(a *workflow.AgentDef) (int64, error) { return b.q.Local.Mark(a) }
func (b *queueBackend) Usage(a *workflow.AgentDef) llm.Usage     { return b.q.Local.Usage(a) }

// Run makes progress on the delivery: it waits for the task queued for
// it, if any (queuing it again in case its queuing was cut short), else
// queues a new one.
func (b *queueBackend) Run(ctx context.Context, job workflow.Job) workflow.Result {
	d := job.Delivery
	started := false
	if b.needsTask(job) {
		d.Round++
		d.Task = fmt.Sprintf("%s-%d-%d-%d", job.Agent.Name, d.UpTo, d.Started.UnixMilli(), d.Round)
		d.TaskAttempt = d.Attempt
		if err := job.Record(); err != nil {
			return workflow.Result{Outcome: workflow.Failed, Err: err.Error()}
		}
		started = true
	}
	r, err := b.result(ctx, job, d.Task)
	if err != nil {
		if ctx.Err() != nil {
			return workflow.Result{Outcome: workflow.Interrupted}
		}
		return workflow.Result{Outcome: workflow.Failed, Err: err.Error(), Started: started}
	}
	res := workflow.Result{Started: started, Err: r.Error, Permanent: r.Permanent}
	_ = json.Unmarshal(r.Result, &res.Answer)
	switch r.Status {
	case cluster.ResultCompleted:
		res.Outcome = workflow.Succeeded
	case cluster.ResultWaiting:
		res.Outcome = workflow.Waiting
	case cluster.ResultInterrupted:
		res.Outcome = workflow.Interrupted
	default:
		res.Outcome = workflow.Failed
		if res.Err == "" {
			res.Err = "the delivery failed"
		}
		res.Err = fmt.Sprintf("%s (on worker %s)", res.Err, r.Worker)
	}
	return res
}

// needsTask reports whether the delivery needs a new task: it has none
// yet; its task ended waiting for a human who has answered since (or
// someone continued the run); its task failed and the controller now
// makes the next attempt; or its run was stopped from outside and the
// instance was started again. A task without a result yet is waited for.
func (b *queueBackend) needsTask(job workflow.Job) bool {
	d := job.Delivery
	if d.Task == "" {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	r, err := b.cl.TaskResult(ctx, b.batch, d.Task)
	if err != nil || r == nil {
		return false
	}
	switch r.Status {
	case cluster.ResultWaiting:
		return b.answered(job.Agent)
	case cluster.ResultFailed:
		return d.Attempt > d.TaskAttempt
	case cluster.ResultInterrupted:
		return true
	}
	return false
}

// answered reports whether the agent's run, which waited for a human, no
// longer waits or has its answer written.
func (b *queueBackend) answered(a *workflow.AgentDef) bool {
	dir, err := runs.Find(b.q.Local.Workspace, workflow.RunID(a.Name, b.q.Local.Instance))
	if err != nil {
		return false
	}
	m, err := runs.ReadMetadata(dir)
	if err != nil {
		return false
	}
	if m.Status != runs.WaitingForInput {
		return true
	}
	_, err = os.Stat(filepath.Join(dir, runs.InteractionDir, runs.ResponseFile))
	return err == nil
}

// opTimeout bounds one cluster operation of the controller.
const opTimeout = 30 * time.Second

// result queues the delivery's task (a duplicate of one queued before is
// dropped) and waits for its result.
func (b *queueBackend) result(ctx context.Context, job workflow.Job, id string) (*cluster.Result, error) {
	d := job.Delivery
	t := cluster.Task{Batch: b.batch, ID: id, Message: job.Prompt, MaxAttempts: 1, Workflow: &cluster.WorkflowTask{
		Workflow: b.q.Workflow, Instance: b.q.Local.Instance, Agent: job.Agent.Name, AgentDir: b.q.AgentDir,
		Workspace: b.q.Local.Workspace, InstanceDir: b.q.Local.InstanceDir, Context: b.q.Local.Context,
		UpTo: d.UpTo, Mark: d.Mark, Attempt: d.Attempt}}
	pctx, cancel := context.WithTimeout(ctx, opTimeout)
	r, err := b.cl.TaskResult(pctx, b.batch, id)
	if err == nil && r == nil {
		_, err = b.cl.PublishTask(pctx, b.q.Queue, t)
	}
	cancel()
	if err != nil || r != nil {
		return r, err
	}
	tick := time.NewTicker(b.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		pctx, cancel := context.WithTimeout(ctx, opTimeout)
		r, err := b.cl.TaskResult(pctx, b.batch, id)
		cancel()
		if err == nil && r != nil {
			return r, nil
		}
		// An error (a leader election, a lost connection) is ridden
		// out: the task's result stays in the cluster until read.
	}
}
