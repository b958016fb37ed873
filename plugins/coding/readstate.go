package coding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/deltakit/delta/plugins/sdk"
)

// ErrNotRead is wrapped when a write, edit or patch is refused because
// the model has not read the file in this run, or the file changed on
// disk since it last did: it would otherwise overwrite what it has not
// seen (a user's edit, a formatter's pass, a file it only guessed at).
var ErrNotRead = errors.New("read the file first")

// stamp is a file as the model last saw it: its size and modification
// time when a tool read or wrote it. A change to either means the file
// is not what the model saw.
type stamp struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
}

// stampOf is the stamp of the file p now; ok is false when it cannot be
// stat'ed (it does not exist).
func stampOf(p string) (stamp, bool) {
	st, err := os.Stat(p)
	if err != nil {
		return stamp{}, false
	}
	return stamp{Path: p, Size: st.Size(), MtimeNS: st.ModTime().UnixNano()}, true
}

// seenData is the Data of a call that read or wrote files, journaled with
// its record: what the state of a later process starts from.
type seenData struct {
	Seen []stamp `json:"files_seen"`
}

// readState is the files the model has seen in this run, newest stamp
// per path. It is rebuilt once per plugin process from the run's earlier
// calls (sdk.CallRequest.Recorded), since `delta continue` starts a new
// process, and kept up to date in memory after that.
type readState struct {
	mu     sync.Mutex
	runDir string // the run the state was loaded from
	files  map[string]stamp
}

// seenTools are the capabilities whose calls stamp files.
var seenTools = []string{"read_file", "read_many_files", "write_file", "edit_file", "apply_patch"}

// load rebuilds the state from the run's earlier calls the first time a
// call of run runDir comes (the profile's names for the seenTools).
func (s *readState) load(req sdk.CallRequest, runDir string, profile []toolDef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files != nil && s.runDir == runDir {
		return nil
	}
	s.runDir, s.files = runDir, map[string]stamp{}
	var names []string
	for _, d := range profile {
		for _, c := range seenTools {
			if d.Runs == c {
				names = append(names, d.Name)
			}
		}
	}
	recs, err := req.Recorded(names...)
	if err != nil {
		s.files = nil
		return fmt.Errorf("find the files read earlier in this run: %w", err)
	}
	for _, r := range recs {
		var d seenData
		if json.Unmarshal(r.Data, &d) != nil {
			continue // another tool's Data
		}
		for _, st := range d.Seen {
			s.files[st.Path] = st
		}
	}
	return nil
}

// note records stamps a call that succeeded saw.
func (s *readState) note(stamps []stamp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]stamp{}
	}
	for _, st := range stamps {
		s.files[st.Path] = st
	}
}

// fresh checks that the existing file p (named name for the model) was
// seen as it is now; a file that does not exist needs no reading.
func (s *readState) fresh(p, name string) error {
	now, ok := stampOf(p)
	if !ok {
		return nil
	}
	s.mu.Lock()
	seen, read := s.files[p]
	s.mu.Unlock()
	switch {
	case !read:
		return fmt.Errorf("%w: %s has not been read in this run; read it with read_file, then make the change", ErrNotRead, name)
	case seen.Size != now.Size || seen.MtimeNS != now.MtimeNS:
		return fmt.Errorf("%w: %s changed on disk since it was last read; read it again with read_file, then make the change", ErrNotRead, name)
	}
	return nil
}

// callSeen collects the stamps of one call, which Call records when the
// call succeeds (in Data, and in the process's state).
type callSeen struct {
	mu     sync.Mutex
	stamps []stamp
}

type callSeenKey struct{}

// withCallSeen gives a call its collector.
func withCallSeen(ctx context.Context) (context.Context, *callSeen) {
	c := &callSeen{}
	return context.WithValue(ctx, callSeenKey{}, c), c
}

// saw records that the call read or wrote file p, as it is now.
func saw(ctx context.Context, p string) {
	c, _ := ctx.Value(callSeenKey{}).(*callSeen)
	st, ok := stampOf(p)
	if c == nil || !ok {
		return
	}
	c.mu.Lock()
	c.stamps = append(c.stamps, st)
	c.mu.Unlock()
}

// mustHaveRead refuses a change to the existing file p unless the model
// saw it as it is now (off with require_read_before_write: false).
func (t *Tools) mustHaveRead(p, name string) error {
	if t.Config.RequireReadBeforeWrite != nil && !*t.Config.RequireReadBeforeWrite {
		return nil
	}
	return t.reads.fresh(p, name)
}

// data is the call's Data: the stamps it collected (nil for none).
func (c *callSeen) data() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stamps) == 0 {
		return nil
	}
	raw, _ := json.Marshal(seenData{Seen: c.stamps})
	return raw
}
