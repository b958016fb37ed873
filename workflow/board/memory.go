package board

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// NewMemory returns a provider that keeps the context in memory, for
// tests and for workflows whose agents all run in this process. It
// follows the same rules as the file provider.
func NewMemory(cfg Config) Provider {
	return newProvider(&memStore{now: cfg.clock(), locks: map[string]*sync.Mutex{}, state: map[string][]byte{}, docs: map[string][]byte{}}, cfg)
}

type memStore struct {
	now   func() time.Time
	mu    sync.Mutex
	log   []Entry
	locks map[string]*sync.Mutex
	state map[string][]byte
	docs  map[string][]byte
	n     Notifier
}

func (m *memStore) AppendEntry(e Entry) (Entry, bool, error) {
	m.mu.Lock()
	if e.Ref != "" {
		for _, old := range m.log {
			if old.Ref == e.Ref {
				m.mu.Unlock()
				return old, true, nil
			}
		}
	}
	e.Seq = int64(len(m.log)) + 1
	if e.Timestamp.IsZero() {
		e.Timestamp = m.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	m.log = append(m.log, e)
	m.mu.Unlock()
	m.n.Notify()
	return e, false, nil
}

func (m *memStore) Entries() ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Entry(nil), m.log...), nil
}

func (m *memStore) LastSeq() (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.log)), nil
}

func (m *memStore) Wait(ctx context.Context, afterSeq int64) (int64, error) {
	for {
		changed := m.n.Changed()
		last, _ := m.LastSeq()
		if last > afterSeq {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-changed:
		}
	}
}

func (m *memStore) Lock(name string) (func(), error) {
	m.mu.Lock()
	l := m.locks[name]
	if l == nil {
		l = new(sync.Mutex)
		m.locks[name] = l
	}
	m.mu.Unlock()
	l.Lock()
	return l.Unlock, nil
}

func (m *memStore) Get(key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.state[key]; ok {
		return append([]byte(nil), b...), nil
	}
	return nil, nil
}

func (m *memStore) Put(key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state[key] = append([]byte(nil), data...)
	return nil
}

func (m *memStore) Keys(prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.state {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *memStore) DocRead(path string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.docs[path]
	if !ok {
		return nil, fmt.Errorf("document %s: %w", path, ErrNotFound)
	}
	return append([]byte(nil), b...), nil
}

func (m *memStore) DocWrite(path string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.docConflict(path); err != nil {
		return err
	}
	m.docs[path] = append([]byte(nil), data...)
	return nil
}

// docConflict refuses a document whose path is a folder of another, or
// runs through one, as a file system would.
func (m *memStore) docConflict(path string) error {
	for other := range m.docs {
		if strings.HasPrefix(other, path+"/") || strings.HasPrefix(path, other+"/") {
			return fmt.Errorf("document %s: %w: conflicts with %s", path, ErrInvalid, other)
		}
	}
	return nil
}

func (m *memStore) DocCreate(path string, data []byte) error {
	m.mu.Lock()
	_, ok := m.docs[path]
	m.mu.Unlock()
	if ok {
		return fmt.Errorf("document %s: %w", path, ErrExists)
	}
	return m.DocWrite(path, data)
}

func (m *memStore) DocDelete(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.docs[path]; !ok {
		return fmt.Errorf("document %s: %w", path, ErrNotFound)
	}
	delete(m.docs, path)
	return nil
}

func (m *memStore) DocList() ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.docs))
	for k := range m.docs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func (m *memStore) Close() error { return nil }
