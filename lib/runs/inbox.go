package runs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
)

// InboxDir holds the messages sent to a running run (delta send), one
// file each, until the engine journals them.
const InboxDir = "inbox"

// Message sources, as USER_MESSAGE's source.
const (
	// SourceSteer is a message sent to a running run: the model sees it
	// on its next call.
	SourceSteer = "steer"
	// SourceFollowUp is a message queued until the run's current input is
	// fully handled; it then starts a new cycle instead of completing.
	SourceFollowUp = "follow_up"
)

// Message is one message of a run's inbox.
type Message struct {
	ID       string    `json:"id"`
	Content  string    `json:"content"`
	FollowUp bool      `json:"follow_up,omitempty"`
	SentAt   time.Time `json:"sent_at"`
}

// Source is the USER_MESSAGE source of m.
func (m Message) Source() string {
	if m.FollowUp {
		return SourceFollowUp
	}
	return SourceSteer
}

// Send puts a message in the run's inbox. The file appears whole (written
// under a temporary name and renamed) and names sort in sending order.
func Send(runDir, content string, followUp bool) (Message, error) {
	m, err := NewMessage(content, followUp)
	if err != nil {
		return Message{}, err
	}
	return m, Queue(runDir, m)
}

// NewMessage is a message with a fresh id, sent now: ids sort in sending
// order and are unique, so that a message handed on (through a cluster)
// is recognised when it arrives twice.
func NewMessage(content string, followUp bool) (Message, error) {
	now := time.Now().UTC()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Message{}, err
	}
	return Message{ID: fmt.Sprintf("%020d-%s", now.UnixNano(), hex.EncodeToString(b[:])), Content: content, FollowUp: followUp, SentAt: now}, nil
}

// Queue puts m, keeping its id, in the run's inbox (delta-cluster's
// mirror delivers the messages sent from other hosts with it).
func Queue(runDir string, m Message) error {
	if !validMessageID(m.ID) {
		return fmt.Errorf("send message: %q is not a message id", m.ID)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dir := filepath.Join(runDir, InboxDir)
	if err := MkdirIn(runDir, dir); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, m.ID+".json"), data, 0o600); err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	return nil
}

// validMessageID keeps a message id a plain file name.
func validMessageID(id string) bool {
	if id == "" || strings.HasPrefix(id, ".") {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Inbox returns the run's messages in sending order. A file that does not
// parse is an error that names it: a message is never silently dropped.
func Inbox(runDir string) ([]Message, error) {
	dir := filepath.Join(runDir, InboxDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read inbox: %w", err)
	}
	var out []Message
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue // a message still being written
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // taken meanwhile
		}
		var m Message
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			return nil, fmt.Errorf("inbox message %s: %w (move it away to go on)", filepath.Join(dir, name), err)
		}
		m.ID = strings.TrimSuffix(name, ".json")
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Message) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Delivered removes a message the journal now holds.
func Delivered(runDir, id string) error {
	err := os.Remove(filepath.Join(runDir, InboxDir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
