package board

import (
	"context"
	"sync"
)

// Store is where a provider keeps the context: the channel, small state
// records (inbox cursors, proposals, the elected owner) and documents. The
// rules (mentions, inboxes, ownership, voting) live once, in the provider
// New returns, over a Store; the file, memory and cluster stores differ only
// in where bytes go. A Store is safe for concurrent use, and every process
// opening the same context sees one channel and one set of records.
type Store interface {
	// AppendEntry appends e to the channel, giving it the next seq (no
	// two appends get the same one, however many processes append) and,
	// when zero, the time now. When e.Ref is set and an entry with that
	// Ref exists, it appends nothing and returns that entry with existed
	// true.
	AppendEntry(e Entry) (out Entry, existed bool, err error)
	// Entries returns every complete entry, oldest first.
	Entries() ([]Entry, error)
	LastSeq() (int64, error)
	// Wait returns when an entry after afterSeq exists or ctx ends.
	Wait(ctx context.Context, afterSeq int64) (int64, error)

	// Lock takes the named lock, exclusive across every process that has
	// the context open, and returns its release.
	Lock(name string) (unlock func(), err error)
	// Get returns a state record (nil when absent); Put replaces it
	// atomically; Keys lists the records whose key starts with prefix,
	// sorted. Keys are slash-separated paths such as "cursors/coder".
	Get(key string) ([]byte, error)
	Put(key string, data []byte) error
	Keys(prefix string) ([]string, error)

	// Documents, by a clean relative slash path (no .., no leading /).
	DocRead(path string) ([]byte, error) // ErrNotFound when absent
	DocWrite(path string, data []byte) error
	DocCreate(path string, data []byte) error // ErrExists when present
	DocDelete(path string) error              // ErrNotFound when absent
	DocList() ([]string, error)

	Close() error
}

// New returns the provider of the context kept in s, following cfg (which
// must be valid). Closing the provider closes s.
func New(s Store, cfg Config) (Provider, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newProvider(s, cfg), nil
}

// Lock names; taken in this order when nested.
const (
	lockState     = "state"     // inbox cursors, proposals, owner
	lockDocuments = "documents" // document changes
)

// Notifier wakes the waiters of one process when an entry is appended:
// a store's Wait takes Changed before it looks, and AppendEntry (or a
// notice of another process's append) calls Notify.
type Notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// Changed returns a channel closed at the next Notify.
func (n *Notifier) Changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *Notifier) Notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
