package board

import (
	"context"
	"sync"
)

// store is where a provider keeps the context: the channel, small state
// records (inbox cursors, proposals, the elected owner) and documents. The
// rules (mentions, inboxes, ownership, voting) live once, in provider, over
// a store; the file and memory stores differ only in where bytes go.
type store interface {
	// appendEntry appends e to the channel under the channel lock, giving
	// it the next seq and (when zero) the time now. When e.Ref is set and
	// an entry with that Ref exists, it appends nothing and returns that
	// entry with existed true.
	appendEntry(e Entry) (out Entry, existed bool, err error)
	// entries returns every complete entry, oldest first.
	entries() ([]Entry, error)
	lastSeq() (int64, error)
	// wait returns when an entry after afterSeq exists or ctx ends.
	wait(ctx context.Context, afterSeq int64) (int64, error)

	// lock takes the named lock (exclusive across processes for the file
	// store) and returns its release.
	lock(name string) (unlock func(), err error)
	// get returns a state record (nil when absent); put replaces it
	// atomically; keys lists the records whose key starts with prefix.
	get(key string) ([]byte, error)
	put(key string, data []byte) error
	keys(prefix string) ([]string, error)

	// Documents, by a path already checked by cleanDocPath.
	docRead(path string) ([]byte, error) // ErrNotFound when absent
	docWrite(path string, data []byte) error
	docCreate(path string, data []byte) error // ErrExists when present
	docDelete(path string) error              // ErrNotFound when absent
	docList() ([]string, error)

	close() error
}

// Lock names; taken in this order when nested.
const (
	lockState     = "state"     // inbox cursors, proposals, owner
	lockDocuments = "documents" // document changes
)

// notifier wakes the waiters of one process when an entry is appended.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// changed returns a channel closed at the next notify.
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
