package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Settings are the cluster-wide choices Init writes into the streams and
// buckets it creates.
type Settings struct {
	// Replicas of every stream and bucket: 1 on one node, 3 on a cluster
	// of three or more (acknowledged writes then survive a node's loss).
	Replicas int
	// LeaseTTL is how long a run's lease outlives its holder's last
	// renewal (holders renew every LeaseTTL/3); 0 means 30 s.
	LeaseTTL time.Duration
}

// DefaultLeaseTTL is the lease TTL Init uses when Settings has none.
const DefaultLeaseTTL = 30 * time.Second

// Init creates (or updates to Delta's settings) every stream, bucket and
// object store of a cluster. It is idempotent: running it again changes
// nothing that is already right.
func (c *Cluster) Init(ctx context.Context, s Settings) error {
	if s.Replicas <= 0 {
		s.Replicas = 1
	}
	if s.LeaseTTL <= 0 {
		s.LeaseTTL = DefaultLeaseTTL
	}
	for _, cfg := range streamConfigs(s.Replicas) {
		if _, err := c.JS.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("create stream %s: %w", cfg.Name, err)
		}
	}
	for _, cfg := range bucketConfigs(s) {
		if _, err := c.JS.CreateOrUpdateKeyValue(ctx, cfg); err != nil {
			return fmt.Errorf("create bucket %s: %w", cfg.Bucket, err)
		}
	}
	for _, name := range objectStores {
		cfg := jetstream.ObjectStoreConfig{Bucket: name, Storage: jetstream.FileStorage, Replicas: s.Replicas}
		if _, err := c.JS.CreateOrUpdateObjectStore(ctx, cfg); err != nil {
			return fmt.Errorf("create object store %s: %w", name, err)
		}
	}
	return nil
}

func streamConfigs(replicas int) []jetstream.StreamConfig {
	base := func(name string, subjects ...string) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name: name, Subjects: subjects, Storage: jetstream.FileStorage, Replicas: replicas,
			// Duplicates of a retried publish are dropped for this long
			// (the server answers duplicate=true with the first sequence).
			Duplicates: 10 * time.Minute,
		}
	}
	journal := base(JournalStream, journalPrefix+">")
	journal.MaxMsgSize = 1 << 20
	inbox := base(InboxStream, inboxPrefix+">")
	inbox.Retention = jetstream.WorkQueuePolicy
	tasks := base(TaskStream, taskPrefix+">")
	tasks.Retention = jetstream.WorkQueuePolicy
	results := base(ResultStream, resultPrefix+">")
	results.Duplicates = 24 * time.Hour // one result per task, even from a late retry
	return []jetstream.StreamConfig{journal, inbox, tasks, results}
}

func bucketConfigs(s Settings) []jetstream.KeyValueConfig {
	kv := func(name string, history uint8) jetstream.KeyValueConfig {
		return jetstream.KeyValueConfig{Bucket: name, History: history, Storage: jetstream.FileStorage, Replicas: s.Replicas}
	}
	leases := kv(LeaseBucket, 1)
	// The bucket's TTL is the lease: each renewal is a new revision with
	// a fresh age, so a key a holder stopped renewing disappears.
	leases.TTL = s.LeaseTTL
	workers := kv(WorkerBucket, 1)
	workers.TTL = s.LeaseTTL
	return []jetstream.KeyValueConfig{kv(RunsBucket, 5), leases, workers, kv(BatchBucket, 5)}
}

// LeaseTTL returns the cluster's lease TTL, as Init set it.
func (c *Cluster) LeaseTTL(ctx context.Context) (time.Duration, error) {
	kv, err := c.bucket(ctx, LeaseBucket)
	if err != nil {
		return 0, err
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("lease bucket: %w", err)
	}
	return st.TTL(), nil
}

// bucket opens a key-value bucket, saying how to create it when missing.
func (c *Cluster) bucket(ctx context.Context, name string) (jetstream.KeyValue, error) {
	kv, err := Retrying(ctx, func(ctx context.Context) (jetstream.KeyValue, error) { return c.JS.KeyValue(ctx, name) })
	if err != nil {
		return nil, fmt.Errorf("cluster bucket %s: %w (run `delta cluster init` first)", name, err)
	}
	return kv, nil
}

// stream opens a stream, saying how to create it when missing.
func (c *Cluster) stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := Retrying(ctx, func(ctx context.Context) (jetstream.Stream, error) { return c.JS.Stream(ctx, name) })
	if err != nil {
		return nil, fmt.Errorf("cluster stream %s: %w (run `delta cluster init` first)", name, err)
	}
	return st, nil
}

// Replicas is how many copies of each stream and bucket the cluster keeps
// (what Init was given): streams created later, such as a workflow's
// board, keep as many.
func (c *Cluster) Replicas(ctx context.Context) (int, error) {
	st, err := c.stream(ctx, JournalStream)
	if err != nil {
		return 0, err
	}
	return st.CachedInfo().Config.Replicas, nil
}
