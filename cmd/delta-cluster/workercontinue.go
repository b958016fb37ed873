package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// A task whose workspace travels (workspace_sync: git or shared) does not
// start a fresh attempt when its worker dies mid-run: the next worker
// continues the same run. With git it clones the task's base commit,
// pulls the run's mirrored journal, and applies the workspace snapshot
// stored after the journal's last ACTION_RESULT; with shared it finds the
// workspace where the dead worker left it. delta-run continue then
// reports the call that was in flight as interrupted and goes on.

// continuable says whether attempt a's run can be continued here. A run
// that took down its worker --max-attempts times is not continued again
// (it may be what kills them): the task goes on as without a policy.
func (w *worker) continuable(t cluster.Task, a cluster.Attempt) bool {
	if a.Continued >= t.MaxAttempts {
		return false
	}
	switch t.Sync {
	case cluster.SyncGit:
		if a.Base == "" || t.Workspace == nil {
			return false // its worker died before the run started
		}
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		_, err := w.c.GetRun(ctx, a.RunID) // mirrored once the run started
		return err == nil
	case cluster.SyncShared:
		_, err := os.Stat(filepath.Join(a.Workspace, runs.ControlDir, a.RunID, runs.JournalFile))
		return a.Workspace != "" && err == nil
	}
	return false
}

// continueAttempt continues the run of attempt i, whose worker died, once
// the dead delta-run's lease on the run has lapsed.
func (w *worker) continueAttempt(ctx context.Context, m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord, i int, lease *cluster.Lease) {
	a := &rec.Attempts[i]
	if wait, err := w.runLeaseFree(ctx, a.RunID); err != nil {
		w.handBack(m, t, err)
		return
	} else if wait > 0 {
		w.logf("task %s of batch %s: run %s is still held by its dead worker's lease: asking again in %s", t.ID, t.Batch, a.RunID, wait.Round(time.Millisecond))
		_ = m.NakWithDelay(wait)
		return
	}
	dead := a.Worker
	a.Status, a.Worker, a.Host, a.Error = cluster.AttemptRunning, w.name, w.host, ""
	a.Continued++
	if t.Sync == cluster.SyncGit {
		a.Workspace = filepath.Join(w.root, t.Batch, a.RunID)
	}
	if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
		w.handBack(m, t, err)
		return
	}
	w.logf("task %s of batch %s: continuing run %s of attempt %d (worker %s died; workspace_sync %s)", t.ID, t.Batch, a.RunID, i+1, dead, t.Sync)
	w.runAttempt(m, t, rec, i, lease, true)
}

// runLeaseFree reports how long to wait before run's lease is free: 0 when
// nobody holds it (or its holder was a process of this host that is gone,
// whose lease is broken).
func (w *worker) runLeaseFree(ctx context.Context, run string) (time.Duration, error) {
	l, err := w.c.Acquire(ctx, cluster.LeaseKey(run), cluster.Holder{Host: w.host, Worker: w.name})
	var held *cluster.HeldError
	switch {
	case err == nil:
		return 0, l.Release(ctx)
	case errors.As(err, &held):
		if held.Holder.Host == w.host && held.Holder.PID > 0 && !deltaRunAlive(held.Holder.PID) {
			if broke, err := w.c.Break(ctx, held); err != nil || broke {
				return 0, err
			}
		}
		return min(max(held.Expires, 250*time.Millisecond), w.ackWait), nil
	}
	return 0, err
}

// deltaRunAlive says whether pid is a live delta-run of this host (an
// error reading it counts as alive: its lease is then waited out).
func deltaRunAlive(pid int) bool {
	alive, err := runs.Alive(&runs.Metadata{PID: pid, ProcessName: "delta-run"})
	return err != nil || alive
}

// continueArgv puts the run and its workspace on this host and returns
// the delta-run command that continues it.
func (w *worker) continueArgv(ctx context.Context, t cluster.Task, a cluster.Attempt, agentDir string) ([]string, error) {
	if t.Sync == cluster.SyncGit {
		if err := w.restoreGit(ctx, t, a); err != nil {
			return nil, fmt.Errorf("continue run %s: %w", a.RunID, err)
		}
	}
	if err := relocateRun(filepath.Join(a.Workspace, runs.ControlDir, a.RunID), agentDir, a.Workspace); err != nil {
		return nil, err
	}
	argv := []string{w.deltaRun, "continue", "--run-id", a.RunID, "-w", a.Workspace, "--force",
		"--approvals", "deny", "--format", "json"}
	if t.LLM != "" {
		argv = append(argv, "--llm", t.LLM)
	}
	return argv, nil
}

// restoreGit makes a.Workspace the run's workspace as its last
// ACTION_RESULT left it, and its run directory the mirrored copy.
func (w *worker) restoreGit(ctx context.Context, t cluster.Task, a cluster.Attempt) error {
	if err := prepareWorkspace(ctx, a.Workspace, &cluster.TaskWorkspace{Git: t.Workspace.Git, Ref: a.Base}); err != nil {
		return err
	}
	pull := &PullCmd{RunID: a.RunID, WorkDir: a.Workspace}
	if err := pull.pull(ctx, w.c, io.Discard); err != nil {
		return err
	}
	results, err := actionResults(filepath.Join(a.Workspace, runs.ControlDir, a.RunID, runs.JournalFile))
	if err != nil {
		return err
	}
	for k := len(results) - 1; k >= 0; k-- {
		patch, found, err := w.c.GetSnapshot(ctx, a.RunID, results[k])
		if err != nil {
			return err
		}
		if found {
			w.logf("run %s: workspace restored from the snapshot after event %d", a.RunID, results[k])
			return gitRestore(ctx, a.Workspace, patch)
		}
	}
	if len(results) > 0 {
		w.logf("run %s: no workspace snapshot found for any of its %d results: it continues on its base commit", a.RunID, len(results))
	}
	return nil
}

// actionResults are the seqs of a journal's ACTION_RESULT events, in order.
func actionResults(journal string) ([]int, error) {
	f, err := os.Open(journal)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var seqs []int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if !isActionResult(sc.Bytes()) {
			continue
		}
		var e struct {
			Seq int `json:"seq"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err == nil && e.Seq > 0 {
			seqs = append(seqs, e.Seq)
		}
	}
	return seqs, sc.Err()
}

// relocateRun points a run's metadata at this worker's copies of its
// agent and workspace: the run moved hosts, and delta-run continue loads
// the agent from agent_home and runs tools in work_dir.
func relocateRun(runDir, agentDir, ws string) error {
	path := filepath.Join(runDir, runs.MetadataFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("continue the run: %w", err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(data, &meta); err != nil {
		return fmt.Errorf("continue the run: %s: %w", path, err)
	}
	meta["agent_home"], _ = json.Marshal(agentDir)
	meta["work_dir"], _ = json.Marshal(ws)
	out, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(out, '\n'), 0o644)
}
