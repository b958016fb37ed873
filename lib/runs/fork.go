package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// ForkOrigin is the run and journal position a forked run started from.
type ForkOrigin struct {
	RunID string `json:"run_id"`
	Seq   int64  `json:"seq"`
}

// ErrForkPoint is a fork position inside an iteration (or past the end).
var ErrForkPoint = errors.New("not a place to fork at")

// forkPoints reports, for each n, whether the journal's first n events
// (events[:n]) leave every tool call of the last THOUGHT answered: only
// there can a run go on from its prefix.
func forkPoints(events []journal.Event) []bool {
	ok := make([]bool, len(events)+1)
	open := map[string]bool{}
	for i, ev := range events {
		switch ev.Type {
		case journal.Thought:
			open = map[string]bool{}
			for _, c := range ev.ToolCalls {
				open[c.ID] = true
			}
		case journal.ActionResult:
			delete(open, ev.CallID)
		}
		ok[i+1] = len(open) == 0
	}
	return ok
}

// CheckForkPoint says whether a run can be forked after its event at: an
// ErrForkPoint error names the nearest positions that can.
func CheckForkPoint(events []journal.Event, at int64) error {
	if at < 1 || at > int64(len(events)) {
		return fmt.Errorf("%w: seq %d is not in the journal (it has events 1 to %d)", ErrForkPoint, at, len(events))
	}
	ok := forkPoints(events)
	if ok[at] {
		return nil
	}
	var near []string
	for n := at - 1; n >= 1; n-- {
		if ok[n] {
			near = append(near, fmt.Sprint(n))
			break
		}
	}
	for n := at + 1; n <= int64(len(events)); n++ {
		if ok[n] {
			near = append(near, fmt.Sprint(n))
			break
		}
	}
	return fmt.Errorf("%w: seq %d is inside iteration %d, whose tool calls are not all answered yet; fork at seq %s (the end of an iteration)",
		ErrForkPoint, at, events[at-1].Iteration, strings.Join(near, " or "))
}

// Fork creates the run newID in the workspace of the run in runDir: its
// journal is that run's first at lines byte for byte, its io records are
// those the lines refer to, and its metadata says where it came from. The
// original is only read; at 0 keeps the whole journal. It returns the new
// run's metadata and directory.
func Fork(runDir string, at int64, newID string) (*Metadata, string, error) {
	orig, err := ReadMetadata(runDir)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(filepath.Join(runDir, JournalFile))
	if err != nil {
		return nil, "", fmt.Errorf("read journal: %w", err)
	}
	events, _, err := journal.Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("read journal: %w", err)
	}
	if at == 0 {
		at = int64(len(events))
	}
	if err := CheckForkPoint(events, at); err != nil {
		return nil, "", err
	}
	prefix := events[:at]
	m := *orig
	now := time.Now().UTC()
	m.RunID, m.CreatedAt, m.UpdatedAt, m.EndTime, m.Error = newID, now, now, nil, nil
	m.PID, m.Hostname, m.StartTimeUnix, m.ProcessName, m.ProcessStartTicks = 0, "", 0, "", 0
	m.ForkedFrom = &ForkOrigin{RunID: orig.RunID, Seq: at}
	// A fork of a subagent is nobody's child (its parent did not spawn
	// it) but keeps the subagent's depth and scope.
	m.ParentRunID = ""
	// A fork of a workflow agent's run is not that agent: continuing it
	// must not speak on the instance's channel the original lives on.
	m.Workflow = nil
	m.Status = Interrupted
	m.Iterations, m.Usage, m.ModelUsage = 0, llm.Usage{}, map[string]llm.Usage{}
	for _, ev := range prefix {
		if ev.Type == journal.Thought {
			m.Iterations++
			if ev.Usage != nil {
				m.Usage = m.Usage.Add(*ev.Usage)
				m.ModelUsage[ev.Model] = m.ModelUsage[ev.Model].Add(*ev.Usage)
			}
		}
	}
	if _, answered := FinalAnswer(prefix); answered {
		m.Status, m.EndTime = Completed, &now
	}
	lines := journalPrefix(data, int(at))
	newDir, err := create(orig.WorkDir, &m, func(dir string) error {
		if err := os.WriteFile(filepath.Join(dir, JournalFile), lines, 0o644); err != nil {
			return err
		}
		return copyRecords(runDir, dir, prefix)
	})
	if err != nil {
		return nil, "", err
	}
	return &m, newDir, nil
}

// journalPrefix is the first n lines of a journal's bytes.
func journalPrefix(data []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return data[:end]
}

// copyRecords copies the io records the events refer to (invocation and
// tool records with the logs and images beside them, hook directories, the
// images of a result without a record) from one run directory to another;
// a record that is gone is skipped.
func copyRecords(from, to string, events []journal.Event) error {
	for _, ev := range events {
		refs := []string{ev.InvocationRef, ev.ExecutionRef, strings.TrimSuffix(ev.ExecutionRef, ".json"), ev.HookRef}
		for _, p := range ev.Parts {
			refs = append(refs, p.Path)
		}
		for _, ref := range refs {
			if ref == "" || !filepath.IsLocal(ref) {
				continue
			}
			if err := copyTree(filepath.Join(from, ref), filepath.Join(to, ref)); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyTree copies a file or a directory; a missing source is no error.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
