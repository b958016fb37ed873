package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PutRun stores run's metadata.json (as the executing host last wrote it)
// in the runs bucket.
func (c *Cluster) PutRun(ctx context.Context, run string, metadata []byte) error {
	kv, err := c.bucket(ctx, RunsBucket)
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, run, metadata); err != nil {
		return fmt.Errorf("store run %s's metadata in the cluster: %w", run, err)
	}
	return nil
}

// GetRun returns run's metadata.json as last mirrored; ErrNoRun when the
// cluster has none.
func (c *Cluster) GetRun(ctx context.Context, run string) ([]byte, error) {
	kv, err := c.bucket(ctx, RunsBucket)
	if err != nil {
		return nil, err
	}
	e, err := kv.Get(ctx, run)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("run %s: %w", run, ErrNoRun)
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s's metadata in the cluster: %w", run, err)
	}
	return e.Value(), nil
}

// Runs returns the ids of every run the runs bucket holds, sorted.
func (c *Cluster) Runs(ctx context.Context) ([]string, error) {
	kv, err := c.bucket(ctx, RunsBucket)
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the cluster's runs: %w", err)
	}
	return keys, nil // the server returns keys in subject order
}

// Send queues an inbox message for run; id (the inbox file's name,
// unique per message) makes a retried send a duplicate.
func (c *Cluster) Send(ctx context.Context, run, id string, body []byte) error {
	msg := nats.NewMsg(InboxSubject(run))
	msg.Data = body
	if _, err := c.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(run+":"+id)); err != nil {
		return fmt.Errorf("send to run %s through the cluster: %w", run, err)
	}
	return nil
}

// ControlRequest is what `delta stop` sends a run's holder.
type ControlRequest struct {
	Op string `json:"op"` // "stop" or "kill"
}

// ControlReply is the holder's answer.
type ControlReply struct {
	OK     bool   `json:"ok"`
	Host   string `json:"host,omitempty"`
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ErrNoHolder is a control request nobody answered: no process holds the
// run in the cluster now.
var ErrNoHolder = errors.New("no process holds this run in the cluster now")

// Control asks run's holder to stop it and returns its answer.
func (c *Cluster) Control(ctx context.Context, run string, req ControlRequest, timeout time.Duration) (ControlReply, error) {
	body, _ := json.Marshal(req)
	m, err := c.NC.Request(ControlSubject(run), body, timeout)
	if errors.Is(err, nats.ErrNoResponders) {
		return ControlReply{}, fmt.Errorf("run %s: %w", run, ErrNoHolder)
	}
	if err != nil {
		return ControlReply{}, fmt.Errorf("ask run %s's holder: %w", run, err)
	}
	var rep ControlReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return ControlReply{}, fmt.Errorf("run %s's holder answered %q: %w", run, m.Data, err)
	}
	return rep, nil
}

// ConsumerName turns a name holding dots into a durable consumer name
// (which cannot hold them): dots become '_' and a short hash of the
// original keeps "a.b" and "a_b" apart.
func ConsumerName(prefix, name string) string {
	sum := sha256.Sum256([]byte(name))
	return prefix + "-" + strings.ReplaceAll(name, ".", "_") + "-" + hex.EncodeToString(sum[:4])
}
