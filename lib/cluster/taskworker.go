package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// WorkerInfo is a live worker as WorkerBucket holds it: the worker
// renews it every lease TTL/3 and the bucket's TTL removes a dead one's.
type WorkerInfo struct {
	Name  string `json:"name"`
	Host  string `json:"host"`
	Queue string `json:"queue"`
	Slots int    `json:"slots"`
	Busy  int    `json:"busy"`
	PID   int    `json:"pid"`
}

// WorkerKey is w's key in WorkerBucket.
func WorkerKey(queue, name string) string { return queue + "." + name }

// PutWorker registers (or renews) w.
func (c *Cluster) PutWorker(ctx context.Context, w WorkerInfo) error {
	kv, err := c.bucket(ctx, WorkerBucket)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(w)
	if _, err := kv.Put(ctx, WorkerKey(w.Queue, w.Name), body); err != nil {
		return fmt.Errorf("register worker %s: %w", w.Name, err)
	}
	return nil
}

// DeleteWorker removes w's registration.
func (c *Cluster) DeleteWorker(ctx context.Context, queue, name string) error {
	kv, err := c.bucket(ctx, WorkerBucket)
	if err != nil {
		return err
	}
	if err := kv.Delete(ctx, WorkerKey(queue, name)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("deregister worker %s: %w", name, err)
	}
	return nil
}

// Workers returns every live worker.
func (c *Cluster) Workers(ctx context.Context) ([]WorkerInfo, error) {
	kv, err := c.bucket(ctx, WorkerBucket)
	if err != nil {
		return nil, err
	}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	defer w.Stop()
	var out []WorkerInfo
	for {
		select {
		case e := <-w.Updates():
			if e == nil {
				return out, nil
			}
			var info WorkerInfo
			if json.Unmarshal(e.Value(), &info) == nil {
				out = append(out, info)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("list workers: %w", ctx.Err())
		}
	}
}
