package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/engine"
)

// opTimeout bounds each cluster operation of a task's handling.
const opTimeout = 30 * time.Second

// handle runs one delivery of a task to its end: a result published and
// the task acked, or the task handed back for another attempt.
func (w *worker) handle(m jetstream.Msg) {
	var t cluster.Task
	if err := json.Unmarshal(m.Data(), &t); err != nil || t.Batch == "" || t.ID == "" {
		w.logf("a message on queue %s is not a task (%v): dropping it", w.queue, err)
		_ = m.Term()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	// Completed effectively once: a task that has its result (its worker
	// died after publishing it, before the ack) is not run again.
	if r, err := w.c.TaskResult(ctx, t.Batch, t.ID); err != nil {
		w.handBack(m, t, err)
		return
	} else if r != nil {
		w.logf("task %s of batch %s has its result already (%s, run %s): not run again", t.ID, t.Batch, r.Status, r.RunID)
		_ = m.Ack()
		return
	}
	lease, err := w.c.Acquire(ctx, cluster.TaskLeaseKey(t.Batch, t.ID), cluster.Holder{Host: w.host, Worker: w.name})
	var held *cluster.HeldError
	if errors.As(err, &held) {
		// Another worker runs it (or died holding it): ask again once the
		// lease may have expired.
		delay := min(max(held.Expires, 250*time.Millisecond), w.ackWait)
		w.logf("task %s of batch %s is held by %s (pid %d): asking again in %s", t.ID, t.Batch, held.Holder.Host, held.Holder.PID, delay.Round(time.Millisecond))
		_ = m.NakWithDelay(delay)
		return
	}
	if err != nil {
		w.handBack(m, t, err)
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		_ = lease.Release(ctx)
	}()
	if t.Workflow != nil {
		w.deliver(m, t, lease)
		return
	}
	w.attempt(ctx, m, t, lease)
}

// attempt runs the task under its lease: it records the attempt, gives
// up past the batch's attempts, runs delta-run, and settles the task.
func (w *worker) attempt(ctx context.Context, m jetstream.Msg, t cluster.Task, lease *cluster.Lease) {
	if r, err := w.c.TaskResult(ctx, t.Batch, t.ID); err != nil || r != nil {
		if r != nil {
			_ = m.Ack() // its result landed while we took the lease
		} else {
			w.handBack(m, t, err)
		}
		return
	}
	rec, err := w.c.TaskRecord(ctx, t.Batch, t.ID)
	if err != nil {
		w.handBack(m, t, err)
		return
	}
	// We hold the lease: an attempt still marked running has no worker.
	died := -1
	for i := range rec.Attempts {
		if rec.Attempts[i].Status == cluster.AttemptRunning {
			rec.Attempts[i].Status, died = cluster.AttemptInterrupted, i
		}
	}
	if died >= 0 && w.republish(ctx, m, t, rec, died) {
		return
	}
	// An attempt that ended but whose result never got published (the
	// result stream had no leader for longer than the publish waited):
	// its run is done, so its result is published, not run again.
	if n := len(rec.Attempts); died < 0 && n > 0 && ended(rec.Attempts[n-1].Status) && w.republish(ctx, m, t, rec, n-1) {
		return
	}
	if died >= 0 && w.continuable(t, rec.Attempts[died]) {
		w.continueAttempt(ctx, m, t, rec, died, lease)
		return
	}
	if n := len(rec.Attempts); n >= t.MaxAttempts {
		w.giveUp(ctx, m, t, rec)
		return
	}
	n := len(rec.Attempts) + 1
	run := cluster.RunID(t.Batch, t.ID, n)
	rec.Attempts = append(rec.Attempts, cluster.Attempt{RunID: run, Status: cluster.AttemptRunning, Worker: w.name, Host: w.host,
		Start: time.Now().UTC().Format(time.RFC3339), Workspace: filepath.Join(w.root, t.Batch, run)})
	if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
		w.handBack(m, t, err)
		return
	}
	w.logf("task %s of batch %s: attempt %d, run %s", t.ID, t.Batch, n, run)
	w.runAttempt(m, t, rec, n-1, lease, false)
}

// runAttempt runs attempt i's run (started, or continued when cont) and
// settles the task with how it ended.
func (w *worker) runAttempt(m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord, i int, lease *cluster.Lease, cont bool) {
	out := w.runTask(m, t, rec, i, lease, cont)
	last := &rec.Attempts[i]
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if out.handBack != nil {
		last.Status, last.Error = cluster.AttemptInterrupted, out.handBack.Error()
		if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
			w.logf("%v", err)
		}
		w.handBack(m, t, out.handBack)
		return
	}
	last.Status = out.result.Status
	out.result.Attempt, out.result.Previous = i+1, rec.Attempts[:i]
	w.settle(ctx, m, t, rec, out.result)
}

// ended says whether an attempt status is a run's end.
func ended(status string) bool {
	return status == cluster.ResultCompleted || status == cluster.ResultFailed || status == cluster.ResultWaiting
}

// republish publishes the result of attempt i, whose worker died, when
// its run's mirrored journal shows that the run ended (the worker died
// after the run, before the result): the task is not run again.
func (w *worker) republish(ctx context.Context, m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord, i int) bool {
	a := &rec.Attempts[i]
	ended, err := w.c.EndedRun(ctx, a.RunID)
	if err != nil || ended == nil {
		return false
	}
	a.Status = ended.Status
	r := cluster.Result{Batch: t.Batch, Task: t.ID, RunID: a.RunID, Status: ended.Status, Usage: ended.Usage,
		Host: a.Host, Worker: a.Worker, Attempt: i + 1, Previous: rec.Attempts[:i]}
	if ended.Status == cluster.ResultCompleted {
		r.Result = engine.ParseResult(ended.Text)
	} else {
		r.Error = "the run failed (its result was recovered from its mirrored journal)"
	}
	w.logf("task %s of batch %s: run %s had ended; publishing its result", t.ID, t.Batch, a.RunID)
	w.settle(ctx, m, t, rec, r)
	return true
}

// giveUp records a task that used all its attempts as failed.
func (w *worker) giveUp(ctx context.Context, m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord) {
	n := len(rec.Attempts)
	msg := fmt.Sprintf("gave up after %d attempts", n)
	if n == 1 {
		msg = "gave up after 1 attempt"
	}
	if n > 0 && rec.Attempts[n-1].Error != "" {
		msg += ": the last one: " + rec.Attempts[n-1].Error
	}
	r := cluster.Result{Batch: t.Batch, Task: t.ID, Status: cluster.ResultFailed, Error: msg, Host: w.host, Worker: w.name,
		Attempt: n, Previous: rec.Attempts}
	if n > 0 {
		r.RunID = rec.Attempts[n-1].RunID
	}
	if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
		w.logf("%v", err)
	}
	if _, err := w.c.PublishResult(ctx, r); err != nil {
		w.handBack(m, t, err)
		return
	}
	w.logf("task %s of batch %s: %s", t.ID, t.Batch, msg)
	_ = m.Term()
}

// settle stores the task's result, then acks the task: a worker dying in
// between leaves the result, which the next delivery finds.
func (w *worker) settle(ctx context.Context, m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord, r cluster.Result) {
	if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
		w.logf("%v", err)
	}
	if _, err := w.c.PublishResult(ctx, r); err != nil {
		w.handBack(m, t, err)
		return
	}
	if err := m.DoubleAck(ctx); err != nil {
		w.logf("task %s of batch %s: ack: %v (its result is stored; a redelivery only acks it)", t.ID, t.Batch, err)
	}
	w.logf("task %s of batch %s: %s (run %s)", t.ID, t.Batch, r.Status, r.RunID)
}

// handBack returns the task to the queue for another attempt.
func (w *worker) handBack(m jetstream.Msg, t cluster.Task, why error) {
	w.logf("task %s of batch %s goes back to the queue: %v", t.ID, t.Batch, why)
	_ = m.NakWithDelay(time.Second)
}
