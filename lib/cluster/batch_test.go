package cluster_test

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if filepath.Ext(name) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPackAgentIsDeterministicAndLeavesRunsOut(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.yaml": "name: a\n", "tools/run.sh": "#!/bin/sh\n", "W001/.delta/r/journal.jsonl": "{}\n",
		"workspaces/LAST_USED": "W001\n", "sub/.delta/x": "x", "W1x/kept.txt": "kept",
	})
	if err := os.Symlink("tools/run.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	data, hash, err := cluster.PackAgent(dir)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "agent.yaml"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := cluster.PackAgent(dir); again != hash {
		t.Fatalf("a touched file changed the agent's hash: %s, then %s", hash, again)
	}
	dest := filepath.Join(t.TempDir(), "a")
	if err := cluster.UnpackAgent(data, dest); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"agent.yaml": "name: a\n", "tools/run.sh": "#!/bin/sh\n", "W1x/kept.txt": "kept", "link.sh": "#!/bin/sh\n"} {
		if got, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(got) != want {
			t.Errorf("%s unpacked as %q (%v), want %q", name, got, err, want)
		}
	}
	if info, err := os.Stat(filepath.Join(dest, "tools/run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("the tool script lost its mode: %v %v", info, err)
	}
	for _, name := range []string{"W001", "workspaces", "sub/.delta"} {
		if _, err := os.Stat(filepath.Join(dest, name)); !os.IsNotExist(err) {
			t.Errorf("%s was packed: runs are not part of the agent", name)
		}
	}
}

func TestUnpackAgentRefusesEscapes(t *testing.T) {
	for name, h := range map[string]tar.Header{
		"dotdot":   {Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644},
		"absolute": {Name: "/etc/evil", Typeflag: tar.TypeReg, Mode: 0o644},
		"link out": {Name: "l", Typeflag: tar.TypeSymlink, Linkname: "../../etc/passwd"},
		"link abs": {Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			if err := tw.WriteHeader(&h); err != nil {
				t.Fatal(err)
			}
			tw.Close()
			dest := filepath.Join(t.TempDir(), "a")
			if err := cluster.UnpackAgent(buf.Bytes(), dest); err == nil {
				t.Fatal("an entry outside the agent was unpacked")
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Fatal("a refused archive left its directory")
			}
		})
	}
}

func TestAgentStoreRoundTrip(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"agent.yaml": "name: a\n"})
	data, hash, err := cluster.PackAgent(dir)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second put of the same agent is a no-op
		if err := c.PutAgent(ctx, hash, data); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.GetAgent(ctx, hash)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GetAgent: %d bytes, %v", len(got), err)
	}
	if _, err := c.GetAgent(ctx, "00"+hash[2:]); err == nil {
		t.Fatal("an agent that was never stored was found")
	}
}

func TestTasksResultsAndStatus(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	b := cluster.Batch{ID: "b1", Queue: "q", Agent: "h", Total: 3, MaxAttempts: 2, Submitted: "2026-01-01T00:00:00Z"}
	if got, err := c.PutBatch(ctx, b); err != nil || got != b {
		t.Fatalf("PutBatch: %+v, %v", got, err)
	}
	other := b
	other.Queue = "elsewhere"
	if got, err := c.PutBatch(ctx, other); err != nil || got != b {
		t.Fatalf("a second PutBatch replaced the first record: %+v, %v", got, err)
	}
	task := cluster.Task{Batch: "b1", ID: "t1", Message: "m", Agent: "h", MaxAttempts: 2}
	if dup, err := c.PublishTask(ctx, "q", task); err != nil || dup {
		t.Fatalf("first publish: dup %v, %v", dup, err)
	}
	if dup, err := c.PublishTask(ctx, "q", task); err != nil || !dup {
		t.Fatalf("a resubmitted task was queued again: dup %v, %v", dup, err)
	}

	// Attempts: written under the task's lease, compare-and-swap.
	rec, err := c.TaskRecord(ctx, "b1", "t1")
	if err != nil || len(rec.Attempts) != 0 {
		t.Fatalf("new task record: %+v, %v", rec, err)
	}
	rec.Attempts = append(rec.Attempts, cluster.Attempt{RunID: cluster.RunID("b1", "t1", 1), Status: cluster.AttemptRunning})
	if err := c.SaveTaskRecord(ctx, "b1", "t1", rec); err != nil {
		t.Fatal(err)
	}
	stale, _ := c.TaskRecord(ctx, "b1", "t1")
	rec.Attempts[0].Status = cluster.AttemptInterrupted
	if err := c.SaveTaskRecord(ctx, "b1", "t1", rec); err != nil {
		t.Fatal(err)
	}
	if err := c.SaveTaskRecord(ctx, "b1", "t1", stale); err == nil {
		t.Fatal("a stale task record overwrote a newer one")
	}
	rec2, _ := c.TaskRecord(ctx, "b1", "t2")
	rec2.Attempts = []cluster.Attempt{{RunID: "b1.t2", Status: cluster.AttemptRunning}}
	if err := c.SaveTaskRecord(ctx, "b1", "t2", rec2); err != nil {
		t.Fatal(err)
	}

	if r, err := c.TaskResult(ctx, "b1", "t1"); err != nil || r != nil {
		t.Fatalf("a result before any was published: %+v, %v", r, err)
	}
	first := cluster.Result{Batch: "b1", Task: "t1", RunID: "b1.t1.a2", Status: cluster.ResultCompleted, Result: []byte(`"ok"`), Attempt: 2}
	if dup, err := c.PublishResult(ctx, first); err != nil || dup {
		t.Fatalf("publish result: dup %v, %v", dup, err)
	}
	late := first
	late.Status = cluster.ResultFailed
	if dup, err := c.PublishResult(ctx, late); err != nil || !dup {
		t.Fatalf("a task's second result was stored: dup %v, %v", dup, err)
	}
	if r, err := c.TaskResult(ctx, "b1", "t1"); err != nil || r == nil || r.Status != cluster.ResultCompleted || string(r.Result) != `"ok"` {
		t.Fatalf("TaskResult: %+v, %v", r, err)
	}
	// A batch whose id extends b1's keeps its results and tasks apart.
	if _, err := c.PublishResult(ctx, cluster.Result{Batch: "b1.x", Task: "t9", Status: cluster.ResultFailed}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Status(ctx, "b1")
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.BatchStatus{Batch: "b1", Queue: "q", Total: 3, Done: 1, Completed: 1, Running: 1, Pending: 1, Attempts: 2}
	if s != want {
		t.Errorf("status %+v, want %+v", s, want)
	}
	var seen []string
	if err := c.Results(ctx, "b1", false, func(r cluster.Result) error { seen = append(seen, r.Task+":"+r.Status); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "t1:completed" {
		t.Errorf("results %v, want the one result of t1", seen)
	}
	if _, err := c.Status(ctx, "nope"); err == nil {
		t.Error("the status of a batch never submitted")
	}
}

func TestWorkerRegistry(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	w := cluster.WorkerInfo{Name: "w1", Host: "h", Queue: "q", Slots: 2, Busy: 1, PID: 7}
	if err := c.PutWorker(ctx, w); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Workers(ctx); err != nil || len(got) != 1 || got[0] != w {
		t.Fatalf("workers %+v, %v", got, err)
	}
	if err := c.DeleteWorker(ctx, "q", "w1"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Workers(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a deregistered worker is listed: %+v, %v", got, err)
	}
}

func TestRunIDsAndTaskIDs(t *testing.T) {
	if got := cluster.RunID("b", "t", 1); got != "b.t" {
		t.Errorf("attempt 1: %s", got)
	}
	if got := cluster.RunID("b", "t", 3); got != "b.t.a3" {
		t.Errorf("attempt 3: %s", got)
	}
	for id, ok := range map[string]bool{"t-1_x": true, "a.b": false, "": false, "a b": false} {
		if err := cluster.CheckTaskID(id); (err == nil) != ok {
			t.Errorf("CheckTaskID(%q): %v", id, err)
		}
	}
}
