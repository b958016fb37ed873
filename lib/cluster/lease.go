package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Holder says who holds a lease.
type Holder struct {
	Host   string `json:"host"`
	PID    int    `json:"pid"`
	Worker string `json:"worker,omitempty"`
	Since  string `json:"since"` // RFC 3339, when it was acquired
	// Token is random, per acquisition: it tells this acquisition's key
	// from another's with the same host, pid and second.
	Token string `json:"token,omitempty"`
}

// HeldError is a lease someone else holds.
type HeldError struct {
	Key    string
	Holder Holder
	// Expires is how long the lease lives at most if its holder stops
	// renewing now.
	Expires time.Duration
	// Revision is the lease's revision as read (0: unknown): Break
	// deletes it only if it is still that one.
	Revision uint64
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by %s (pid %d) since %s; the lease expires %s after its holder stops renewing it",
		e.Key, e.Holder.Host, e.Holder.PID, e.Holder.Since, e.Expires.Round(time.Second))
}

// Lease is one held lease: a key in LeaseBucket this process created and
// renews. Its first revision is the holder's epoch, the fencing token the
// mirrored journal lines carry.
type Lease struct {
	kv    jetstream.KeyValue
	key   string
	value []byte
	ttl   time.Duration
	epoch uint64

	mu      sync.Mutex
	rev     uint64
	renewed time.Time // monotonic: the last renewal the cluster stored

	lost     chan struct{}
	lostOnce sync.Once
	why      error
	stop     context.CancelFunc
	done     chan struct{}
}

// Acquire creates key in the lease bucket for this process and keeps it
// renewed every TTL/3 until Release. It returns a *HeldError when another
// holder has it.
func (c *Cluster) Acquire(ctx context.Context, key string, h Holder) (*Lease, error) {
	kv, ttl, err := c.leaseBucket(ctx)
	if err != nil {
		return nil, err
	}
	if h.Host == "" {
		h.Host, _ = os.Hostname()
	}
	if h.PID == 0 {
		h.PID = os.Getpid()
	}
	h.Since = time.Now().UTC().Format(time.RFC3339)
	var token [8]byte
	_, _ = rand.Read(token[:])
	h.Token = hex.EncodeToString(token[:])
	value, _ := json.Marshal(h)
	rev, err := Retrying(ctx, func(ctx context.Context) (uint64, error) { return kv.Create(ctx, key, value) })
	if errors.Is(err, jetstream.ErrKeyExists) {
		// A try whose answer was lost may have created it: then the key
		// holds this very value (it names this process and the time).
		if e, gerr := kv.Get(ctx, key); gerr == nil && string(e.Value()) == string(value) {
			rev, err = e.Revision(), nil
		}
	}
	if errors.Is(err, jetstream.ErrKeyExists) {
		held := &HeldError{Key: key, Expires: ttl}
		if e, gerr := kv.Get(ctx, key); gerr == nil {
			_ = json.Unmarshal(e.Value(), &held.Holder)
			held.Expires, held.Revision = ttl-time.Since(e.Created()), e.Revision()
		}
		return nil, held
	}
	if err != nil {
		return nil, fmt.Errorf("acquire %s: %w", key, err)
	}
	l := &Lease{kv: kv, key: key, value: value, ttl: ttl, epoch: rev, rev: rev, renewed: time.Now(),
		lost: make(chan struct{}), done: make(chan struct{})}
	rctx, cancel := context.WithCancel(context.Background())
	l.stop = cancel
	go l.keep(rctx)
	return l, nil
}

// Break deletes the lease a HeldError reported, if nobody renewed or
// replaced it since: for a holder known to be dead (a process of this
// host that no longer exists), whose lease would otherwise live out its
// TTL. It reports whether it deleted it.
func (c *Cluster) Break(ctx context.Context, held *HeldError) (bool, error) {
	if held.Revision == 0 {
		return false, nil
	}
	kv, _, err := c.leaseBucket(ctx)
	if err != nil {
		return false, err
	}
	err = kv.Delete(ctx, held.Key, jetstream.LastRevision(held.Revision))
	if IsWrongLastSequence(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("break the lease %s: %w", held.Key, err)
	}
	return true, nil
}

// leaseBucket is the lease bucket and its TTL, looked up on first use.
func (c *Cluster) leaseBucket(ctx context.Context) (jetstream.KeyValue, time.Duration, error) {
	c.leaseMu.Lock()
	defer c.leaseMu.Unlock()
	if c.leaseKV != nil {
		return c.leaseKV, c.leaseTTL, nil
	}
	kv, err := c.bucket(ctx, LeaseBucket)
	if err != nil {
		return nil, 0, err
	}
	st, err := Retrying(ctx, func(ctx context.Context) (jetstream.KeyValueStatus, error) { return kv.Status(ctx) })
	if err != nil {
		return nil, 0, fmt.Errorf("lease bucket: %w", err)
	}
	c.leaseKV, c.leaseTTL = kv, st.TTL()
	return kv, c.leaseTTL, nil
}

// Epoch is the lease's first revision: it grows with every new holder.
func (l *Lease) Epoch() uint64 { return l.epoch }

// TTL is the lease bucket's TTL.
func (l *Lease) TTL() time.Duration { return l.ttl }

// Lost is closed when this process no longer holds the lease: another
// holder replaced it, or no renewal reached the cluster for long enough
// that it may have expired. The holder must stop writing at once.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err says why the lease was lost (nil while it is held).
func (l *Lease) Err() error {
	select {
	case <-l.lost:
		return l.why
	default:
		return nil
	}
}

// margin is how long before the TTL a holder that could not renew gives
// up: a sixth of the TTL, so it stops before any challenger can start.
func (l *Lease) margin() time.Duration { return l.ttl / 6 }

func (l *Lease) keep(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := l.renew(ctx); err != nil {
			l.give(err)
			return
		}
	}
}

// renew stores a new revision of the lease; a transient failure is
// retried until the lease may have expired.
func (l *Lease) renew(ctx context.Context) error {
	l.mu.Lock()
	rev, last := l.rev, l.renewed
	l.mu.Unlock()
	for attempt := 0; ; attempt++ {
		left := l.ttl - l.margin() - time.Since(last)
		if left <= 0 {
			return fmt.Errorf("lease %s: no renewal reached the cluster for %s", l.key, time.Since(last).Round(time.Millisecond))
		}
		cctx, cancel := context.WithTimeout(ctx, left)
		next, err := l.kv.Update(cctx, l.key, l.value, rev)
		cancel()
		if err == nil {
			l.mu.Lock()
			l.rev, l.renewed = next, time.Now()
			l.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		if IsWrongLastSequence(err) || errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("lease %s was taken over or expired: %w", l.key, err)
		}
		backoff(ctx, attempt)
	}
}

func (l *Lease) give(err error) {
	l.lostOnce.Do(func() {
		l.why = err
		close(l.lost)
	})
}

// Release stops renewing and deletes the lease if this process still
// holds it.
func (l *Lease) Release(ctx context.Context) error {
	l.stop()
	<-l.done
	if l.Err() != nil {
		return nil
	}
	l.give(errors.New("released"))
	l.mu.Lock()
	rev := l.rev
	l.mu.Unlock()
	if err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(rev)); err != nil && !IsWrongLastSequence(err) {
		return fmt.Errorf("release %s: %w", l.key, err)
	}
	return nil
}
