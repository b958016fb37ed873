package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/cluster"
)

// mirrorSync snapshots the workspace of a run whose task carries its
// workspace in git (workspace_sync: git, set by the worker in delta-run's
// environment): after each ACTION_RESULT, before the line is stored. The
// engine makes the journal durable before it asks the model again, and a
// sync is answered only once every append before it is handled, so the
// snapshot is taken before the next call can change anything: it is the
// workspace as the results the journal holds left it. (Calls of one step
// run at once: a snapshot after the first of them may hold part of a
// sibling's work; the one after the step's last result holds it all.)
type mirrorSync struct {
	ws, runDir, run, base string
	stderr                io.Writer
	last                  int    // seq of the snapshot stored last
	said                  string // the last problem reported, said once
}

// newMirrorSync is the run's snapshotter, or nil when it needs none.
func newMirrorSync(run, runDir string, stderr io.Writer) *mirrorSync {
	if os.Getenv(cluster.EnvSync) != cluster.SyncGit {
		return nil
	}
	// The run directory is WORKSPACE/.delta/RUN.
	ws := filepath.Dir(filepath.Dir(runDir))
	return &mirrorSync{ws: ws, runDir: runDir, run: run, base: os.Getenv(cluster.EnvSyncBase), stderr: stderr}
}

// before stores the snapshot a line needs, if it is an ACTION_RESULT. It
// returns the seq stored (0: none). A failure is said, and the line is
// stored anyway: a later snapshot, or an earlier one, carries the run on.
func (s *mirrorSync) before(ctx context.Context, c *cluster.Cluster, line []byte, seq int) int {
	if s == nil || !isActionResult(line) {
		return 0
	}
	if s.base == "" {
		s.warn(fmt.Errorf("%s is unset: the workspace cannot be snapshotted", cluster.EnvSyncBase))
		return 0
	}
	patch, err := gitSnapshot(ctx, s.ws, s.runDir, s.base)
	if err == nil {
		err = c.PutSnapshot(ctx, s.run, seq, patch)
	}
	if err != nil {
		s.warn(fmt.Errorf("workspace snapshot at event %d: %w (another host continuing this run gets an older snapshot)", seq, err))
		return 0
	}
	return seq
}

// stored drops the snapshot before seq's, once seq's line is stored: the
// journal's last ACTION_RESULT always has its snapshot in the cluster.
func (s *mirrorSync) stored(ctx context.Context, c *cluster.Cluster, seq int) {
	if s == nil || seq == 0 {
		return
	}
	if s.last > 0 {
		if err := c.DeleteSnapshot(ctx, s.run, s.last); err != nil {
			s.warn(err)
		}
	}
	s.last = seq
}

func (s *mirrorSync) warn(err error) {
	if msg := err.Error(); msg != s.said {
		s.said = msg
		fmt.Fprintf(s.stderr, "delta-cluster mirror: %s\n", msg)
	}
}

var actionResult = []byte(`"ACTION_RESULT"`)

// isActionResult says whether a journal line is an ACTION_RESULT.
func isActionResult(line []byte) bool {
	if !bytes.Contains(line, actionResult) {
		return false
	}
	var e struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &e) == nil && e.Type == "ACTION_RESULT"
}
