package natsstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/workflow/board"
	"github.com/nats-io/nats.go/jetstream"
)

// Locks, state records and documents: keys of the instance's bucket.

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
