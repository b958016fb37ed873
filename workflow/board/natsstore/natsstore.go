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
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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
	if s.sub, err = c.NC.Subscribe(cluster.BoardSubject(instance), func(*nats.Msg) { s.n.notify() }); err != nil {
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
	if _, err := cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Put(ctx, configKey, b) }); err != nil {
		return fmt.Errorf("create workflow instance %s: %w", s.instance, err)
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
	n        notifier

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

// AppendEntry publishes e with the next seq, expecting the stream's last
// sequence to be the one read: when another appender got there first, it
// reads again and retries.
func (s *store) AppendEntry(e board.Entry) (board.Entry, bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	msgID := "ref:" + e.Ref
	if e.Ref == "" {
		var rnd [12]byte
		_, _ = rand.Read(rnd[:])
		msgID = "new:" + hex.EncodeToString(rnd[:])
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = s.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	for attempt := 0; ; attempt++ {
		if e.Ref != "" {
			if old, ok, err := s.byRef(e.Ref); err != nil || ok {
				return old, ok, err
			}
		}
		last, err := s.LastSeq()
		if err != nil {
			return board.Entry{}, false, err
		}
		e.Seq = last + 1
		data, _ := json.Marshal(e)
		ack, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.PubAck, error) {
			return s.c.JS.Publish(ctx, cluster.BoardSubject(s.instance), data,
				jetstream.WithExpectLastSequence(uint64(last)), jetstream.WithMsgID(msgID))
		})
		if cluster.IsWrongLastSequence(err) && ctx.Err() == nil {
			pause(attempt)
			continue
		}
		if err != nil {
			return board.Entry{}, false, fmt.Errorf("append to workflow channel: %w", err)
		}
		if ack.Duplicate {
			// An earlier try of this append (its answer lost), or
			// another appender of the same Ref, stored it already.
			old, err := s.entryAt(int64(ack.Sequence))
			return old, e.Ref != "", err
		}
		if ack.Sequence != uint64(e.Seq) {
			return board.Entry{}, false, fmt.Errorf("append to workflow channel: stored as seq %d, expected %d", ack.Sequence, e.Seq)
		}
		return e, false, nil
	}
}

// byRef finds the entry carrying ref, if any.
func (s *store) byRef(ref string) (board.Entry, bool, error) {
	all, err := s.Entries()
	if err != nil {
		return board.Entry{}, false, err
	}
	for _, old := range all {
		if old.Ref == ref {
			return old, true, nil
		}
	}
	return board.Entry{}, false, nil
}

func (s *store) entryAt(seq int64) (board.Entry, error) {
	all, err := s.Entries()
	if err != nil {
		return board.Entry{}, err
	}
	if seq < 1 || seq > int64(len(all)) {
		return board.Entry{}, fmt.Errorf("workflow channel: no entry %d", seq)
	}
	return all[seq-1], nil
}

// Entries reads the entries appended since the last call, then returns
// them all.
func (s *store) Entries() ([]board.Entry, error) {
	last, err := s.LastSeq()
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	for seq := int64(len(s.cache)) + 1; seq <= last; seq++ {
		m, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.RawStreamMsg, error) { return s.st.GetMsg(ctx, uint64(seq)) })
		if err != nil {
			return nil, fmt.Errorf("read workflow channel entry %d: %w", seq, err)
		}
		var e board.Entry
		if err := json.Unmarshal(m.Data, &e); err != nil || e.Seq != seq {
			return nil, fmt.Errorf("workflow channel entry %d is not an entry of seq %d (%v)", seq, seq, err)
		}
		s.cache = append(s.cache, e)
	}
	return append([]board.Entry(nil), s.cache[:last]...), nil
}

func (s *store) LastSeq() (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	info, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.StreamInfo, error) { return s.st.Info(ctx) })
	if err != nil {
		return 0, fmt.Errorf("workflow channel: %w", err)
	}
	return int64(info.State.LastSeq), nil
}

func (s *store) Wait(ctx context.Context, afterSeq int64) (int64, error) {
	for {
		changed := s.n.changed()
		last, err := s.LastSeq()
		if err != nil || last > afterSeq {
			return last, err
		}
		t := time.NewTimer(wakeEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// Lock acquires the lock's lease, waiting while another process (or
// another goroutine of this one) holds it. A holder that died without
// releasing it holds it until its lease expires.
func (s *store) Lock(name string) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := cluster.BoardLockKey(s.instance, name)
	for attempt := 0; ; attempt++ {
		l, err := s.c.Acquire(ctx, key, cluster.Holder{})
		var held *cluster.HeldError
		if errors.As(err, &held) {
			pause(attempt)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("workflow %s lock: %w", name, err)
		}
		s.lmu.Lock()
		s.held[name] = l
		clear(s.revs)
		s.lmu.Unlock()
		return func() {
			s.lmu.Lock()
			delete(s.held, name)
			s.lmu.Unlock()
			rctx, cancel := s.ctx()
			defer cancel()
			_ = l.Release(rctx) // a lease not released expires
		}, nil
	}
}

// pause waits a little longer after each try, at most 50 ms: locks are
// held for a few round trips.
func pause(attempt int) {
	d := time.Millisecond << min(attempt, 6)
	time.Sleep(min(d, 50*time.Millisecond))
}

// stillHeld refuses a write made under a lock whose lease was lost.
func (s *store) stillHeld(lock string) error {
	s.lmu.Lock()
	l := s.held[lock]
	s.lmu.Unlock()
	if l != nil && l.Err() != nil {
		return fmt.Errorf("the workflow's %s lock was lost (%v): nothing written", lock, l.Err())
	}
	return nil
}

// Lock names of the board package (taken by its provider around writes).
const (
	lockState     = "state"
	lockDocuments = "documents"
)

func (s *store) get(key string) ([]byte, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	e, err := cluster.Retrying(ctx, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return s.kv.Get(ctx, key) })
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		s.noteRev(key, 0)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.noteRev(key, e.Revision())
	return e.Value(), nil
}

func (s *store) noteRev(key string, rev uint64) {
	s.lmu.Lock()
	s.revs[key] = rev
	s.lmu.Unlock()
}

// put writes key: a compare-and-swap on the revision read since the lock
// was taken (create when it was absent), a plain put when it was not read.
func (s *store) put(lock, key string, data []byte) error {
	if err := s.stillHeld(lock); err != nil {
		return err
	}
	s.lmu.Lock()
	rev, read := s.revs[key]
	s.lmu.Unlock()
	ctx, cancel := s.ctx()
	defer cancel()
	var (
		next uint64
		err  error
	)
	switch {
	case !read:
		next, err = cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Put(ctx, key, data) })
	case rev == 0:
		next, err = cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Create(ctx, key, data) })
	default:
		next, err = cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Update(ctx, key, data, rev) })
	}
	if errors.Is(err, jetstream.ErrKeyExists) || cluster.IsWrongLastSequence(err) {
		return fmt.Errorf("%s changed since it was read under the %s lock (another holder wrote it): nothing written", key, lock)
	}
	if err != nil {
		return err
	}
	s.noteRev(key, next)
	return nil
}

func (s *store) Get(key string) ([]byte, error) { return s.get(statePrefix + encode(key)) }

func (s *store) Put(key string, data []byte) error {
	return s.put(lockState, statePrefix+encode(key), data)
}

func (s *store) Keys(prefix string) ([]string, error) {
	all, err := s.list(statePrefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range all {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out, nil
}

// list returns the decoded names of the keys under prefix, sorted.
func (s *store) list(prefix string) ([]string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	keys, err := cluster.Retrying(ctx, func(ctx context.Context) ([]string, error) { return s.kv.Keys(ctx) })
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			if b, err := base64.RawURLEncoding.DecodeString(name); err == nil {
				out = append(out, string(b))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *store) DocRead(path string) ([]byte, error) {
	b, err := s.get(docPrefix + encode(path))
	if err != nil {
		return nil, fmt.Errorf("read document %s: %w", path, err)
	}
	if b == nil {
		return nil, fmt.Errorf("document %s: %w", path, board.ErrNotFound)
	}
	return b, nil
}

func (s *store) DocWrite(path string, data []byte) error {
	if err := s.put(lockDocuments, docPrefix+encode(path), data); err != nil {
		return fmt.Errorf("write document %s: %w", path, err)
	}
	return nil
}

func (s *store) DocCreate(path string, data []byte) error {
	if err := s.stillHeld(lockDocuments); err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	key := docPrefix + encode(path)
	rev, err := cluster.Retrying(ctx, func(ctx context.Context) (uint64, error) { return s.kv.Create(ctx, key, data) })
	if errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("document %s: %w", path, board.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("create document %s: %w", path, err)
	}
	s.noteRev(key, rev)
	return nil
}

func (s *store) DocDelete(path string) error {
	if err := s.stillHeld(lockDocuments); err != nil {
		return err
	}
	key := docPrefix + encode(path)
	b, err := s.get(key)
	if err != nil {
		return fmt.Errorf("delete document %s: %w", path, err)
	}
	if b == nil {
		return fmt.Errorf("document %s: %w", path, board.ErrNotFound)
	}
	s.lmu.Lock()
	rev := s.revs[key]
	s.lmu.Unlock()
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := cluster.Retrying(ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.kv.Delete(ctx, key, jetstream.LastRevision(rev))
	}); err != nil {
		return fmt.Errorf("delete document %s: %w", path, err)
	}
	s.noteRev(key, 0)
	return nil
}

func (s *store) DocList() ([]string, error) { return s.list(docPrefix) }

func (s *store) Close() error {
	if s.sub != nil {
		return s.sub.Unsubscribe()
	}
	return nil
}

func encode(name string) string { return base64.RawURLEncoding.EncodeToString([]byte(name)) }

// notifier wakes this process's waiters when an entry is appended.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
