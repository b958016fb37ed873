package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/runs"
)

// outcome is how an attempt ended: a result to publish, or handBack (why
// the task goes back to the queue for a fresh attempt).
type outcome struct {
	result   cluster.Result
	handBack error
}

// childGrace is how long delta-run gets to journal its interruption
// (SIGTERM, as Ctrl-C) before it is killed.
const childGrace = 10 * time.Second

// runTask prepares the attempt's agent and workspace and runs delta-run
// on them as a child, heartbeating the task while it runs: a new run, or
// with cont the attempt's run continued from where its worker died.
//
// The child runs under lib/execute's guard (delta-exec-guard): in a
// session and process group of its own, and killed with everything it
// started when this worker dies, even by SIGKILL, on Linux and macOS
// alike — the guard sees its socket to the worker close.
func (w *worker) runTask(m jetstream.Msg, t cluster.Task, rec *cluster.TaskRecord, i int, lease *cluster.Lease, cont bool) outcome {
	ctx, cancel := context.WithCancel(w.stopped)
	defer cancel()
	go func() { // the task's lease lost: someone else may run it now
		select {
		case <-lease.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	go heartbeat(ctx, m, w.ackWait/3)
	agentDir, err := w.agent(ctx, t.Agent)
	if err != nil {
		return outcome{handBack: err}
	}
	a := &rec.Attempts[i]
	var argv []string
	if cont {
		argv, err = w.continueArgv(ctx, t, *a, agentDir)
	} else {
		argv, err = w.startArgv(ctx, t, rec, i, agentDir)
	}
	if err != nil {
		return outcome{handBack: err}
	}
	env := w.childEnv(t)
	if t.Sync == cluster.SyncGit {
		env = append(env, cluster.EnvSync+"="+cluster.SyncGit, cluster.EnvSyncBase+"="+a.Base)
	}
	res, err := execute.Run(ctx, execute.Spec{
		Argv: argv, Dir: a.Workspace, Env: env, KillGrace: childGrace,
		StderrFile: filepath.Join(w.root, t.Batch, a.RunID+".log"), MaxCapture: 16 << 20,
	})
	if err != nil {
		return outcome{handBack: fmt.Errorf("start delta-run: %w", err)}
	}
	base := cluster.Result{Batch: t.Batch, Task: t.ID, RunID: a.RunID, Host: w.host, Worker: w.name}
	return childOutcome(base, res, lease.Err())
}

// startArgv prepares a new run's workspace (its base commit recorded for
// workspace_sync: git) and returns the delta-run command that starts it.
func (w *worker) startArgv(ctx context.Context, t cluster.Task, rec *cluster.TaskRecord, i int, agentDir string) ([]string, error) {
	a := &rec.Attempts[i]
	if err := prepareWorkspace(ctx, a.Workspace, t.Workspace); err != nil {
		return nil, err
	}
	if t.Sync == cluster.SyncGit {
		base, err := gitHead(ctx, a.Workspace)
		if err != nil {
			return nil, fmt.Errorf("workspace_sync git: the workspace's base commit: %w", err)
		}
		a.Base = base
		if err := w.c.SaveTaskRecord(ctx, t.Batch, t.ID, rec); err != nil {
			return nil, err
		}
	}
	argv := []string{w.deltaRun, "run", agentDir, "-w", a.Workspace, "--run-id", a.RunID, "-m", t.Message,
		"--approvals", "deny", "--format", "json"}
	if t.LLM != "" {
		argv = append(argv, "--llm", t.LLM)
	}
	return argv, nil
}

// childOutcome turns delta-run's exit into an outcome.
func childOutcome(r cluster.Result, res execute.Result, lost error) outcome {
	switch {
	case res.Canceled && lost != nil:
		return outcome{handBack: fmt.Errorf("run %s stopped: the task's lease was lost: %w", r.RunID, lost)}
	case res.Canceled:
		return outcome{handBack: fmt.Errorf("run %s interrupted (the worker is stopping)", r.RunID)}
	case res.Signal != "":
		return outcome{handBack: fmt.Errorf("delta-run for %s killed by %s", r.RunID, res.Signal)}
	}
	switch res.ExitCode {
	case runs.ExitCompleted, runs.ExitFailed, runs.ExitWaiting:
		var rr runs.Result
		if err := json.Unmarshal([]byte(res.Stdout), &rr); err != nil || rr.RunID == "" {
			return outcome{handBack: fmt.Errorf("delta-run for %s exited %d without its RunResult: %s", r.RunID, res.ExitCode, lastLines(res.Stderr))}
		}
		fromRunResult(&r, rr)
		return outcome{result: r}
	case runs.ExitConfig:
		// A configuration error fails the same way on every attempt.
		r.Status, r.Error = cluster.ResultFailed, "configuration error (exit 126): "+lastLines(res.Stderr)
		return outcome{result: r}
	}
	return outcome{handBack: fmt.Errorf("delta-run for %s exited %d: %s", r.RunID, res.ExitCode, lastLines(res.Stderr))}
}

// fromRunResult fills r from delta-run's RunResult.
func fromRunResult(r *cluster.Result, rr runs.Result) {
	switch rr.Status {
	case runs.Completed:
		r.Status, r.Result = cluster.ResultCompleted, rr.Result
	case runs.WaitingForInput:
		r.Status = cluster.ResultWaiting
		r.Result, _ = json.Marshal(rr.Interaction)
	default:
		r.Status = cluster.ResultFailed
		if rr.Error != nil {
			r.Error = rr.Error.Type + ": " + rr.Error.Message
		} else {
			r.Error = "run ended " + string(rr.Status)
		}
	}
	r.Usage, _ = json.Marshal(rr.Metrics.Usage.Usage)
	r.Cost = rr.Metrics.Usage.TotalCostUSD
}

// lastLines is what delta-run said on stderr about why it stopped: its
// error and hint lines, else its last lines.
func lastLines(s string) string {
	all := strings.Split(strings.TrimSpace(s), "\n")
	var said []string
	for _, l := range all {
		if strings.Contains(l, ": error: ") || strings.Contains(l, ": hint: ") {
			said = append(said, l)
		}
	}
	if len(said) == 0 {
		said = all[max(0, len(all)-3):]
	}
	if out := strings.Join(said, " / "); out != "" {
		return out
	}
	return "(nothing on stderr)"
}

// heartbeat tells the cluster the task is still being worked on every
// interval until ctx ends.
func heartbeat(ctx context.Context, m jetstream.Msg, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = m.InProgress()
		}
	}
}

// childEnv is the worker's environment with the task's variables and the
// cluster's address (so that a delta-run that mirrors runs to the cluster
// does so; the task's env cannot point it elsewhere).
func (w *worker) childEnv(t cluster.Task) []string {
	set := map[string]string{}
	var order []string
	add := func(name, value string) {
		if _, ok := set[name]; !ok {
			order = append(order, name)
		}
		set[name] = value
	}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		add(name, value)
	}
	for name, value := range t.Env {
		add(name, value)
	}
	add(cluster.EnvURL, w.clusterURL)
	if w.cred != "" {
		add("DELTA_CLUSTER_CREDS", w.cred)
	}
	env := make([]string, 0, len(order))
	for _, name := range order {
		env = append(env, name+"="+set[name])
	}
	return env
}

// agent returns the directory of the agent stored under hash, fetching
// and unpacking it the first time this worker's root needs it.
func (w *worker) agent(ctx context.Context, hash string) (string, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", fmt.Errorf("task names agent %q, which is not a content hash", hash)
	}
	dir := filepath.Join(w.root, "agents", hash)
	w.agentMu.Lock()
	defer w.agentMu.Unlock()
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	data, err := w.c.GetAgent(ctx, hash)
	if err != nil {
		return "", err
	}
	if err := cluster.UnpackAgent(data, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// prepareWorkspace makes ws a fresh directory, or a clone of the task's
// repository at its ref.
func prepareWorkspace(ctx context.Context, ws string, spec *cluster.TaskWorkspace) error {
	// An attempt's run id is new, so anything at ws is a leftover of an
	// attempt that never started its run.
	if err := os.RemoveAll(ws); err != nil {
		return fmt.Errorf("workspace %s: %w", ws, err)
	}
	if spec == nil {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(ws), 0o755); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	if err := git(ctx, "", "clone", "--quiet", "--", spec.Git, ws); err != nil {
		return err
	}
	if spec.Ref != "" {
		return git(ctx, ws, "-c", "advice.detachedHead=false", "checkout", "--quiet", spec.Ref, "--")
	}
	return nil
}

// git runs git, failing with what it said.
func git(ctx context.Context, dir string, args ...string) error {
	res, err := execute.Run(ctx, execute.Spec{Argv: append([]string{"git"}, args...), Dir: dir, Timeout: 10 * time.Minute})
	if err == nil && res.ExitCode != 0 {
		err = errors.New(lastLines(res.Stderr))
	}
	if err != nil {
		return fmt.Errorf("prepare the workspace: git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}
