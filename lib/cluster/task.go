package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Task is one line of a batch as a worker receives it on its queue: the
// line of the tasks file plus what every task of the batch shares, so a
// worker needs no second read to start it.
type Task struct {
	Batch       string            `json:"batch"`
	ID          string            `json:"id"`
	Message     string            `json:"message"`
	Workspace   *TaskWorkspace    `json:"workspace,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	LLM         string            `json:"llm,omitempty"`
	Agent       string            `json:"agent"` // the agent's content hash in AgentStore
	MaxAttempts int               `json:"max_attempts"`
	// Sync is how a run whose worker died continues: SyncNone ("") as
	// a fresh attempt, SyncGit or SyncShared as the same run on the
	// next worker.
	Sync string `json:"workspace_sync,omitempty"`
	// Workflow, when set, makes the task one delivery to a workflow's
	// agent (delta workflow --cluster, the agent on a queue) instead of
	// a batch line: Message is the delivery's digest.
	Workflow *WorkflowTask `json:"workflow,omitempty"`
}

// WorkflowTask is one delivery of a workflow agent's inbox. The agent's
// run lives in a workspace every worker of the queue mounts at the same
// path (workspace_sync: shared): the worker makes progress on that run
// (starts it, continues it, or waits for the process already on it) the
// way the workflow's controller does on its own host, and reports how the
// delivery went. A worker that dies leaves the run for the next worker,
// which continues it: the engine reports the call it was in as
// interrupted, and runs no call twice.
type WorkflowTask struct {
	Workflow    string `json:"workflow"`
	Instance    string `json:"instance"`
	Agent       string `json:"agent"`     // the agent's name in the workflow
	AgentDir    string `json:"agent_dir"` // its Delta agent directory
	Workspace   string `json:"workspace"`
	InstanceDir string `json:"instance_dir"`
	// Context is true when the agent gets the workflow tools (the board
	// in the cluster the worker serves).
	Context bool `json:"context"`
	// UpTo, Mark and Attempt are the controller's record of the delivery.
	UpTo    int64 `json:"up_to"`
	Mark    int64 `json:"mark"`
	Attempt int   `json:"attempt"`
}

// Delivered is what a workflow task's delivery printed (delta-workflow
// deliver): how the attempt ended, for the worker to publish.
type Delivered struct {
	Outcome   string `json:"outcome"` // succeeded, failed, waiting or interrupted
	Error     string `json:"error,omitempty"`
	Answer    string `json:"answer,omitempty"`
	Permanent bool   `json:"permanent,omitempty"`
	Started   bool   `json:"started,omitempty"`
}

// WorkflowBatch is the batch id under which an instance's deliveries are
// queued: the instance's creation time keeps a later instance of the
// same name from finding an earlier one's results.
func WorkflowBatch(instance string, created int64) string {
	return "workflow-" + instance + "-" + strconv.FormatInt(created, 10)
}

// TaskWorkspace is where a task's run works: a clone of Git at Ref
// (Ref "" is the clone's default branch).
type TaskWorkspace struct {
	Git string `json:"git"`
	Ref string `json:"ref,omitempty"`
}

// CheckTaskID refuses a task id that cannot name a task: one subject
// token of [A-Za-z0-9_-] (no dots, so that a batch's keys and subjects
// can be told from another batch's whose id extends this one).
func CheckTaskID(id string) error {
	if err := CheckName("task id", id); err != nil {
		return err
	}
	for _, c := range id {
		if c == '.' {
			return fmt.Errorf("task id %q holds '.': use only letters, digits, '_' and '-'", id)
		}
	}
	return nil
}

// RunID is the run id of a task's attempt: <batch>.<task> for the first,
// <batch>.<task>.a<n> for attempt n.
func RunID(batch, task string, attempt int) string {
	if attempt <= 1 {
		return batch + "." + task
	}
	return batch + "." + task + ".a" + strconv.Itoa(attempt)
}

// TaskMsgID is the message id of a task and of its result: a resubmitted
// task and a retried result are duplicates.
func TaskMsgID(batch, task string) string { return batch + ":" + task }

// PublishTask queues t on queue. A task published before (same batch and
// id, within the stream's duplicate window) is not queued again; dup says so.
func (c *Cluster) PublishTask(ctx context.Context, queue string, t Task) (dup bool, err error) {
	body, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	msg := nats.NewMsg(TaskSubject(queue))
	msg.Data = body
	ack, err := c.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(TaskMsgID(t.Batch, t.ID)))
	if err != nil {
		return false, fmt.Errorf("queue task %s on %s: %w", t.ID, queue, err)
	}
	return ack.Duplicate, nil
}

// Attempt is one try at a task: the run it started and how it ended.
type Attempt struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"` // running, then completed, failed, waiting or interrupted
	Worker string `json:"worker,omitempty"`
	Host   string `json:"host,omitempty"`
	Start  string `json:"start,omitempty"` // RFC 3339
	Error  string `json:"error,omitempty"` // why an interrupted attempt stopped, when known
	// Workspace is the attempt's workspace on its worker's host, and
	// Base the commit it was cloned at (workspace_sync: git): what the
	// next worker needs to continue the attempt's run.
	Workspace string `json:"workspace,omitempty"`
	Base      string `json:"base,omitempty"`
	// Continued counts the times another worker continued this
	// attempt's run after its worker died.
	Continued int `json:"continued,omitempty"`
}

// Attempt statuses besides the result statuses.
const (
	AttemptRunning     = "running"
	AttemptInterrupted = "interrupted"
)

// TaskRecord is the attempts made at one task, kept in BatchBucket. Only
// the holder of the task's lease writes it.
type TaskRecord struct {
	Attempts []Attempt `json:"attempts"`
	rev      uint64
}

// TaskLeaseKey is the key of a task's lease in LeaseBucket: the worker
// running the task holds it.
func TaskLeaseKey(batch, task string) string { return "task." + batch + "." + task }

func taskKey(batch, task string) string { return "task." + batch + "." + task }

// TaskRecord reads the attempts made at a task so far (none: an empty
// record).
func (c *Cluster) TaskRecord(ctx context.Context, batch, task string) (*TaskRecord, error) {
	kv, err := c.bucket(ctx, BatchBucket)
	if err != nil {
		return nil, err
	}
	e, err := kv.Get(ctx, taskKey(batch, task))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return &TaskRecord{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read task %s of batch %s: %w", task, batch, err)
	}
	r := &TaskRecord{rev: e.Revision()}
	if err := json.Unmarshal(e.Value(), r); err != nil {
		return nil, fmt.Errorf("task %s of batch %s: its record is not JSON: %w", task, batch, err)
	}
	return r, nil
}

// SaveTaskRecord writes r back, refusing it when someone wrote the record
// since it was read (the task's lease makes that a bug, not a race).
func (c *Cluster) SaveTaskRecord(ctx context.Context, batch, task string, r *TaskRecord) error {
	kv, err := c.bucket(ctx, BatchBucket)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(r)
	var rev uint64
	if r.rev == 0 {
		rev, err = kv.Create(ctx, taskKey(batch, task), body)
	} else {
		rev, err = kv.Update(ctx, taskKey(batch, task), body, r.rev)
	}
	if err != nil {
		return fmt.Errorf("record the attempts at task %s of batch %s: %w", task, batch, err)
	}
	r.rev = rev
	return nil
}

// TaskRecords returns every task record of batch, by task id.
func (c *Cluster) TaskRecords(ctx context.Context, batch string) (map[string]*TaskRecord, error) {
	kv, err := c.bucket(ctx, BatchBucket)
	if err != nil {
		return nil, err
	}
	prefix := "task." + batch + "."
	w, err := kv.WatchFiltered(ctx, []string{prefix + "*"}, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("read the tasks of batch %s: %w", batch, err)
	}
	defer w.Stop()
	out := map[string]*TaskRecord{}
	for {
		select {
		case e := <-w.Updates():
			if e == nil { // every current value has been delivered
				return out, nil
			}
			r := &TaskRecord{rev: e.Revision()}
			if err := json.Unmarshal(e.Value(), r); err == nil {
				out[e.Key()[len(prefix):]] = r
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("read the tasks of batch %s: %w", batch, ctx.Err())
		}
	}
}
