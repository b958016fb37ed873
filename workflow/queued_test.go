package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadQueues(t *testing.T) {
	f := loadTestFile(t, `
queue: gpu.big
workspace_sync: shared
agents:
  a:
    model: sonnet
  b:
    model: sonnet
    queue: cpu
    workspace_sync: none
`)
	if f.Queue != "gpu.big" || f.WorkspaceSync != SyncShared {
		t.Errorf("file queue, sync = %q, %q; want gpu.big, shared", f.Queue, f.WorkspaceSync)
	}
	r := &runner{f: f}
	a, b := f.Agents[0], f.Agents[1]
	if q, s := r.queueOf(a), r.syncOf(a); q != "gpu.big" || s != SyncShared {
		t.Errorf("agent a: queue, sync = %q, %q; want the file's", q, s)
	}
	if q, s := r.queueOf(b), r.syncOf(b); q != "cpu" || s != SyncNone {
		t.Errorf("agent b: queue, sync = %q, %q; want its own cpu, none", q, s)
	}
	r.o.WorkspaceSync = SyncGit
	if s := r.syncOf(b); s != SyncGit {
		t.Errorf("--workspace-sync git: agent b's sync = %q", s)
	}
}

func TestQueueRefused(t *testing.T) {
	f := loadTestFile(t, "queue: q\nagents:\n  a:\n    model: sonnet\n")
	r := &runner{f: f}
	if err := r.checkQueues(); err == nil || !strings.Contains(err.Error(), "run the workflow with --cluster URL") {
		t.Errorf("a queue without a cluster: %v", err)
	}
	r.o.Dispatch = func(Queued) (Backend, error) { return nil, nil }
	if err := r.checkQueues(); err == nil || !strings.Contains(err.Error(), "workspace_sync none") {
		t.Errorf("a queue with workspace_sync none: %v", err)
	}
	r.o.WorkspaceSync = SyncShared
	if err := r.checkQueues(); err != nil {
		t.Errorf("a shared workspace: %v", err)
	}
}

func TestLoadQueueProblems(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"queue: 'a b'\nagents:\n  a:\n    model: sonnet\n", `invalid queue name "a b"`},
		{"queue: a..b\nagents:\n  a:\n    model: sonnet\n", `invalid queue name "a..b"`},
		{"workspace_sync: rsync\nagents:\n  a:\n    model: sonnet\n", `unknown policy "rsync"`},
		{"agents:\n  a:\n    backend: command\n    command: cat\n    queue: q\n", "queue: is not for backend command"},
	} {
		path := filepath.Join(t.TempDir(), "wf.yaml")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: Load = %v, want %q", tc.src, err, tc.want)
		}
	}
}
