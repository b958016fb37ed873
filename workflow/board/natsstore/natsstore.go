// Package natsstore keeps a workflow's board in a Delta cluster (NATS
// JetStream), so that agents on several hosts share one channel, one set
// of inbox cursors and proposals, and one set of documents. The rules are
// the board package's, as for the file and memory stores; this package
// only says where the bytes go:
//
//   - the channel is a stream of its own (cluster.BoardStream), one
//     message per entry, the stream sequence being the entry's seq. Each
//     append expects the last sequence it read, so two appenders never
//     take one seq, and carries a message id, so a retried append whose
//     answer was lost is not appended twice;
//   - the configuration, state records and documents are keys of a bucket
//     of its own (cluster.BoardBucket);
//   - the board's locks are cluster leases (cluster.BoardLockKey). Inside
//     a lock each write is a compare-and-swap on the revision read under
//     it, so a holder whose lease lapsed (a process paused past the lease
//     TTL) has its late write refused instead of moving a cursor back or
//     resolving a vote twice.
//
// Only commands that run cluster code link this package; delta-run does not.
package natsstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/workflow/board"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Keys in an instance's bucket.
const (
	configKey   = "config"
	statePrefix = "s." // + the state record's key, base64url
	docPrefix   = "d." // + the document's path, base64url
)

// wakeEvery bounds how long Wait sleeps without looking at the stream,
// should an append's notice be lost (a reconnect).
const wakeEvery = time.Second

// Open opens the board of the workflow instance named instance in the
// cluster c connects to. With a Config naming agents (the controller
// starting the instance) the stream and bucket are created when missing
// and cfg is saved; with a zero Config the saved one is used, and an
// instance that was never created is an error wrapping board.ErrNotFound.
// Closing the provider leaves c open.
func Open(ctx context.Context, c *cluster.Cluster, instance string, cfg board.Config) (board.Provider, error) {
	s, cfg, err := openStore(ctx, c, instance, cfg)
	if err != nil {
		return nil, err
	}
	p, err := board.New(s, cfg)
	if err != nil {
		s.Close()
		return nil, err
	}
	return p, nil
}

// openStore opens (or, given a Config, creates) the instance's store and
// returns it with the instance's configuration.
func openStore(ctx context.Context, c *cluster.Cluster, instance string, cfg board.Config) (*store, board.Config, error) {
	if !board.ValidName(instance) {
		return nil, cfg, fmt.Errorf("workflow instance %q: a cluster instance name is a letter, then letters, digits, _ or -", instance)
	}
	s := &store{c: c, instance: instance, held: map[string]*cluster.Lease{}, revs: map[string]uint64{}}
	var err error
	if cfg.IsZero() {
		err = s.open(ctx, &cfg)
	} else {
		err = s.create(ctx, cfg)
	}
	if err != nil {
		return nil, cfg, err
	}
	s.now = cfg.Now
	if s.now == nil {
		s.now = time.Now
	}
	if s.sub, err = c.NC.Subscribe(cluster.BoardSubject(instance), func(*nats.Msg) { s.n.Notify() }); err != nil {
		return nil, cfg, fmt.Errorf("workflow instance %s: %w", instance, err)
	}
	return s, cfg, nil
}

// create makes the instance's stream and bucket, as many replicas as the
// cluster keeps, and saves cfg.
func (s *store) create(ctx context.Context, cfg board.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	replicas, err := s.c.Replicas(ctx)
	if err != nil {
		return err
	}
	s.st, err = cluster.Retrying(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return s.c.JS.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: cluster.BoardStream(s.instance), Subjects: []string{cluster.BoardSubject(s.instance)},
			Storage: jetstream.FileStorage, Replicas: replicas,
		})
	})
	if err != nil {
		return fmt.Errorf("create workflow instance %s: %w", s.instance, err)
	}
	s.kv, err = cluster.Retrying(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return s.c.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: cluster.BoardBucket(s.instance), History: 1, Storage: jetstream.FileStorage, Replicas: replicas,
		})
	})
	if err != nil {
		return fmt.Errorf("create workflow instance %s: %w", s.instance, err)
	}
	b, _ := json.Marshal(cfg)
	_, err = cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Create(ctx, configKey, b) })
	if errors.Is(err, jetstream.ErrKeyExists) {
		// An instance of that name exists: resuming it is fine, taking
		// another workflow's board is not.
		return s.sameConfig(ctx, cfg)
	}
	if err != nil {
		return fmt.Errorf("create workflow instance %s: %w", s.instance, err)
	}
	return nil
}

// ErrOtherWorkflow: an instance of that name in the cluster has another
// configuration (another workflow's agents, document or owner).
var ErrOtherWorkflow = errors.New("the cluster holds another workflow's instance of that name")

// sameConfig refuses to reuse an existing instance whose saved
// configuration is not cfg.
func (s *store) sameConfig(ctx context.Context, cfg board.Config) error {
	var saved board.Config
	if err := s.open(ctx, &saved); err != nil {
		return err
	}
	a, _ := json.Marshal(saved.WithDefaults())
	b, _ := json.Marshal(cfg.WithDefaults())
	if string(a) != string(b) {
		return fmt.Errorf("%w: instance %s has %s, not %s: give this workflow an instance of its own (--instance NAME)", ErrOtherWorkflow, s.instance, a, b)
	}
	return nil
}

// open finds an existing instance and reads its saved configuration.
func (s *store) open(ctx context.Context, cfg *board.Config) error {
	missing := func(err error) error {
		if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("no workflow instance %s in the cluster: %w", s.instance, board.ErrNotFound)
		}
		return fmt.Errorf("open workflow instance %s: %w", s.instance, err)
	}
	var err error
	if s.st, err = cluster.Retrying(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return s.c.JS.Stream(ctx, cluster.BoardStream(s.instance))
	}); err != nil {
		return missing(err)
	}
	if s.kv, err = cluster.Retrying(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return s.c.JS.KeyValue(ctx, cluster.BoardBucket(s.instance))
	}); err != nil {
		return missing(err)
	}
	e, err := cluster.Retrying(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return s.kv.Get(ctx, configKey) })
	if err != nil {
		return missing(err)
	}
	if err := json.Unmarshal(e.Value(), cfg); err != nil {
		return fmt.Errorf("open workflow instance %s: its saved configuration: %w", s.instance, err)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("open workflow instance %s: its saved configuration: %w", s.instance, err)
	}
	return nil
}

type store struct {
	c        *cluster.Cluster
	instance string
	st       jetstream.Stream
	kv       jetstream.KeyValue
	now      func() time.Time
	sub      *nats.Subscription
	n        board.Notifier

	mu    sync.Mutex
	cache []board.Entry // the channel's first entries, as read

	lmu  sync.Mutex
	held map[string]*cluster.Lease // the locks this process holds, by name
	// revs are the revisions of the keys read or written since the last
	// lock was taken: a write to one of them is a compare-and-swap.
	revs map[string]uint64
}

var _ board.Store = (*store)(nil)

func (s *store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), cluster.TransientWait+10*time.Second)
}

func (s *store) Close() error {
	if s.sub != nil {
		return s.sub.Unsubscribe()
	}
	return nil
}

func encode(name string) string { return base64.RawURLEncoding.EncodeToString([]byte(name)) }
