package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// taskLine is one line of a tasks file as the user writes it.
type taskLine struct {
	ID        string                 `json:"id"`
	Message   string                 `json:"message"`
	Workspace *cluster.TaskWorkspace `json:"workspace"`
	Env       map[string]string      `json:"env"`
	LLM       string                 `json:"llm"`
}

// readTasks reads and checks every line of the tasks file before any is
// queued: an error names the file and line, and nothing is published.
func readTasks(path, batch string) ([]cluster.Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read tasks: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var tasks []cluster.Task
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		t, err := parseTask(line, batch)
		if err == nil && seen[t.ID] != 0 {
			err = fmt.Errorf("task id %q is also on line %d: each task needs its own id", t.ID, seen[t.ID])
		}
		if err != nil {
			return nil, cli.WithCode(cli.ExitUsage, "nothing was queued; fix the line and submit again", fmt.Errorf("%s:%d: %w", path, n, err))
		}
		seen[t.ID] = n
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tasks %s: %w", path, err)
	}
	if len(tasks) == 0 {
		return nil, cli.Errorf(cli.ExitUsage, "", "%s holds no task: write one JSON object per line, {\"id\": …, \"message\": …}", path)
	}
	return tasks, nil
}

func parseTask(line []byte, batch string) (cluster.Task, error) {
	var l taskLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return cluster.Task{}, fmt.Errorf("not a task object {id, message, workspace?, env?, llm?}: %w", err)
	}
	if dec.More() {
		return cluster.Task{}, fmt.Errorf("more than one JSON value on the line: write one task per line")
	}
	if err := cluster.CheckTaskID(l.ID); err != nil {
		return cluster.Task{}, err
	}
	// The longest run id a task can get must be a valid run id.
	if err := runs.ValidateID(cluster.RunID(batch, l.ID, 99)); err != nil {
		return cluster.Task{}, fmt.Errorf("task %s: batch id and task id are too long together for a run id: %w", l.ID, err)
	}
	if strings.TrimSpace(l.Message) == "" {
		return cluster.Task{}, fmt.Errorf("task %s has no message", l.ID)
	}
	if l.Workspace != nil && l.Workspace.Git == "" {
		return cluster.Task{}, fmt.Errorf("task %s: workspace needs git, the repository to clone (leave workspace out for an empty directory)", l.ID)
	}
	for name := range l.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return cluster.Task{}, fmt.Errorf("task %s: env name %q is not a variable name", l.ID, name)
		}
	}
	return cluster.Task{Batch: batch, ID: l.ID, Message: l.Message, Workspace: l.Workspace, Env: l.Env, LLM: l.LLM}, nil
}

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// batchSync is the batch's workspace policy: the flag's, else the agent's
// workspace_sync:, else none. git needs every task's workspace in git: a
// snapshot is a change against the commit the workspace was cloned at.
func batchSync(flag, agentDir string, tasks []cluster.Task) (string, error) {
	sync := flag
	if sync == "" {
		var err error
		if sync, err = agentSync(agentDir); err != nil {
			return "", err
		}
	}
	if err := cluster.CheckSync(sync); err != nil {
		return "", cli.WithCode(cli.ExitUsage, "", err)
	}
	if sync == cluster.SyncGit {
		for _, t := range tasks {
			if t.Workspace == nil {
				return "", cli.Errorf(cli.ExitUsage, `give each task a "workspace": {"git": URL}, or choose --workspace-sync shared or none`,
					"task %s has no git workspace: workspace_sync git stores a run's workspace as a change against the commit its workspace was cloned at", t.ID)
			}
		}
	}
	if sync == cluster.SyncNone {
		sync = ""
	}
	return sync, nil
}

// agentSync is the workspace_sync: key of the agent's agent.yaml ("" when unset).
func agentSync(dir string) (string, error) {
	for _, name := range []string{"agent.yaml", "agent.yml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var a struct {
			Sync string `yaml:"workspace_sync"`
		}
		if err := yaml.Unmarshal(data, &a); err != nil {
			return "", cli.Errorf(cli.ExitUsage, "", "%s: %v", filepath.Join(dir, name), err)
		}
		if err := cluster.CheckSync(a.Sync); err != nil {
			return "", cli.WithCode(cli.ExitUsage, "", fmt.Errorf("%s: %w", filepath.Join(dir, name), err))
		}
		return a.Sync, nil
	}
	return "", nil
}
