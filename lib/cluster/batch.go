package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Batch is the record of a submitted batch in BatchBucket.
type Batch struct {
	ID          string `json:"id"`
	Queue       string `json:"queue"`
	Agent       string `json:"agent"` // content hash of the agent in AgentStore
	Total       int    `json:"total"`
	MaxAttempts int    `json:"max_attempts"`
	Submitted   string `json:"submitted"` // RFC 3339, the first submission
}

// ErrNoBatch is a batch id the cluster has no record of.
var ErrNoBatch = errors.New("the cluster has no such batch (was it submitted with `delta batch submit`?)")

func batchKey(id string) string { return "batch." + id }

// PutBatch records b, unless a record of the batch exists: then it
// returns that one, so that a resubmission keeps its first record.
func (c *Cluster) PutBatch(ctx context.Context, b Batch) (Batch, error) {
	kv, err := c.bucket(ctx, BatchBucket)
	if err != nil {
		return Batch{}, err
	}
	body, _ := json.Marshal(b)
	_, err = kv.Create(ctx, batchKey(b.ID), body)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return c.GetBatch(ctx, b.ID)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("record batch %s: %w", b.ID, err)
	}
	return b, nil
}

// GetBatch returns batch id's record; ErrNoBatch when there is none.
func (c *Cluster) GetBatch(ctx context.Context, id string) (Batch, error) {
	kv, err := c.bucket(ctx, BatchBucket)
	if err != nil {
		return Batch{}, err
	}
	e, err := kv.Get(ctx, batchKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Batch{}, fmt.Errorf("batch %s: %w", id, ErrNoBatch)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("read batch %s: %w", id, err)
	}
	var b Batch
	if err := json.Unmarshal(e.Value(), &b); err != nil {
		return Batch{}, fmt.Errorf("batch %s: its record is not JSON: %w", id, err)
	}
	return b, nil
}

// BatchStatus counts a batch's tasks by state.
type BatchStatus struct {
	Batch     string `json:"batch"`
	Queue     string `json:"queue"`
	Total     int    `json:"total"`
	Done      int    `json:"done"` // tasks with a result: completed + failed + waiting
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	Waiting   int    `json:"waiting"`
	Running   int    `json:"running"` // an attempt started and no result yet
	Pending   int    `json:"pending"` // not started (or handed back) and no result
	Attempts  int    `json:"attempts"`
}

// Count adds a result to s.
func (s *BatchStatus) Count(r Result) {
	s.Done++
	switch r.Status {
	case ResultCompleted:
		s.Completed++
	case ResultFailed:
		s.Failed++
	case ResultWaiting:
		s.Waiting++
	}
}

// Status reads where batch id stands now.
func (c *Cluster) Status(ctx context.Context, id string) (BatchStatus, error) {
	b, err := c.GetBatch(ctx, id)
	if err != nil {
		return BatchStatus{}, err
	}
	s := BatchStatus{Batch: id, Queue: b.Queue, Total: b.Total}
	done := map[string]bool{}
	err = c.Results(ctx, id, false, func(r Result) error {
		done[r.Task] = true
		s.Count(r)
		return nil
	})
	if err != nil {
		return BatchStatus{}, err
	}
	recs, err := c.TaskRecords(ctx, id)
	if err != nil {
		return BatchStatus{}, err
	}
	for task, r := range recs {
		s.Attempts += len(r.Attempts)
		n := len(r.Attempts)
		if !done[task] && n > 0 && r.Attempts[n-1].Status == AttemptRunning {
			s.Running++
		}
	}
	s.Pending = max(0, s.Total-s.Done-s.Running)
	return s, nil
}
