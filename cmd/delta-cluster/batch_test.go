package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// markAgent is a scripted agent whose one tool appends the run id to the
// file $MARKER (one line per run that ran it), then answers "done".
var markAgent = map[string]string{
	"agent.yaml": `name: marker
llm:
  provider: scripted
  script: script.yaml
tools:
  - name: mark
    shell: 'echo "$DELTA_RUN_ID" >> "$MARKER"'
`,
	"script.yaml": `turns:
  - tool_calls:
      - name: mark
        args: {}
  - content: done
`,
}

func TestBatchOfFiftyOverTwoWorkers(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	called := false
	BatchOverTwoWorkers(t, one.URL, func() { called = true })
	if !called {
		t.Error("midway was not called")
	}
}

// BatchOverTwoWorkers submits 50 tasks, runs them on two worker
// subprocesses of the cluster at url, and checks that every task ran
// exactly once and has exactly one result. It takes the cluster's URL so
// that a test of another cluster (three nodes) can run it, and midway
// (nil for none), called once 10 tasks have their result, is where such a
// test hurts the cluster (kills the stream leader) mid-batch.
func BatchOverTwoWorkers(t *testing.T, url string, midway func()) {
	environ := env(t, url)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	agent := writeAgent(t, markAgent)
	ids := taskIDs(50)
	var tasks []map[string]any
	for _, id := range ids {
		tasks = append(tasks, map[string]any{"id": id, "message": "mark " + id, "env": map[string]string{"MARKER": marker}})
	}
	file := writeTasks(t, tasks)
	out, code := run(t, environ, "batch", "submit", file, "--agent", agent, "--queue", "q50", "--batch", "b50")
	if code != 0 {
		t.Fatalf("submit exited %d", code)
	}
	var sub submitted
	if err := json.Unmarshal([]byte(out), &sub); err != nil || sub != (submitted{Batch: "b50", Tasks: 50, Queue: "q50", Queued: 50}) {
		t.Fatalf("submit printed %q (%v)", out, err)
	}
	for _, name := range []string{"w1", "w2"} {
		start(t, environ, "worker", "--queue", "q50", "--slots", "2", "--name", name, "--root", filepath.Join(root, name))
	}
	waiter := start(t, environ, "batch", "wait", "b50")
	if midway != nil {
		c := clustertest.Connect(t, url)
		poll(t, "10 results", func() bool { s, err := c.Status(ctxT(t), "b50"); return err == nil && s.Done >= 10 })
		midway()
	}
	if code := waiter.wait(t); code != 0 {
		t.Fatalf("batch wait exited %d:\n%s", code, waiter.Stderr())
	}
	if !strings.Contains(waiter.Stderr(), "batch b50: 50/50 done (50 completed, 0 failed, 0 waiting)") {
		t.Errorf("batch wait's last progress line is missing:\n%s", waiter.Stderr())
	}
	out, _ = run(t, environ, "batch", "results", "b50")
	got := results(t, out)
	if len(got) != 50 {
		t.Fatalf("%d results, want 50", len(got))
	}
	workers := map[string]int{}
	for _, id := range ids {
		r := got[id]
		if r.Status != cluster.ResultCompleted || r.RunID != "b50."+id || r.Attempt != 1 || string(r.Result) != `"done"` || len(r.Previous) != 0 {
			t.Errorf("task %s: result %+v", id, r)
		}
		workers[r.Worker]++
	}
	marks := lines(t, marker)
	slices.Sort(marks)
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = "b50." + id
	}
	if !slices.Equal(marks, want) {
		t.Errorf("the tool ran for %v, want once per task", marks)
	}
	t.Logf("tasks per worker: %v", workers)
	// Submitting the batch again queues nothing.
	out, _ = run(t, environ, "batch", "submit", file, "--agent", agent, "--queue", "q50", "--batch", "b50")
	if err := json.Unmarshal([]byte(out), &sub); err != nil || sub.Queued != 0 {
		t.Fatalf("a resubmission printed %q", out)
	}
	out, _ = run(t, environ, "batch", "status", "b50", "--json")
	var st cluster.BatchStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if want := (cluster.BatchStatus{Batch: "b50", Queue: "q50", Total: 50, Done: 50, Completed: 50, Attempts: 50}); st != want {
		t.Errorf("status %+v, want %+v", st, want)
	}
}

// sleepAgent's tool appends the run id to $MARKER and, the first time
// (one line in the marker), touches $MARKER.started and sleeps: the test
// kills the worker then.
var sleepAgent = map[string]string{
	"agent.yaml": `name: sleeper
llm:
  provider: scripted
  script: script.yaml
tools:
  - name: mark
    exec: "${AGENT_HOME}/mark.sh"
`,
	"mark.sh": `#!/bin/sh
echo "$DELTA_RUN_ID" >> "$MARKER"
if [ "$(wc -l < "$MARKER")" -eq 1 ]; then
  echo $$ > "$MARKER.pid"
  touch "$MARKER.started"
  exec sleep 600
fi
`,
	"script.yaml": markAgent["script.yaml"],
}

func TestWorkerKilledMidToolRetries(t *testing.T) {
	// The dead worker's task lease must expire before the task runs again:
	// a short TTL keeps the test short, long enough for a loaded machine's
	// renewals (every second).
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 3 * time.Second})
	environ := env(t, one.URL)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	file := writeTasks(t, []map[string]any{{"id": "k", "message": "go", "env": map[string]string{"MARKER": marker}}})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, sleepAgent), "--queue", "qk", "--batch", "bk"); code != 0 {
		t.Fatal("submit failed")
	}
	first := start(t, environ, "worker", "--queue", "qk", "--ack-wait", "2s", "--name", "first", "--root", filepath.Join(root, "first"))
	poll(t, "the tool to start sleeping", func() bool { _, err := os.Stat(marker + ".started"); return err == nil })
	first.signal(t, syscall.SIGKILL)
	first.wait(t)
	// The worker's delta-run and the tool it ran do not outlive it.
	for _, pid := range []int{pidIn(t, filepath.Join(root, "first", "bk", "bk.k", ".delta", "bk.k", "metadata.json")), pidIn(t, marker+".pid")} {
		poll(t, fmt.Sprintf("process %d to end with its worker", pid), func() bool { return !alive(pid) })
	}
	start(t, environ, "worker", "--queue", "qk", "--ack-wait", "2s", "--name", "second", "--root", filepath.Join(root, "second"))
	waiter := start(t, environ, "batch", "wait", "bk")
	if code := waiter.wait(t); code != 0 {
		t.Fatalf("batch wait exited %d:\n%s", code, waiter.Stderr())
	}
	out, _ := run(t, environ, "batch", "results", "bk")
	r := results(t, out)["k"]
	want := []cluster.Attempt{{RunID: "bk.k", Status: cluster.AttemptInterrupted, Worker: "first"}}
	if r.Status != cluster.ResultCompleted || r.RunID != "bk.k.a2" || r.Attempt != 2 || r.Worker != "second" || len(r.Previous) != 1 ||
		r.Previous[0].RunID != want[0].RunID || r.Previous[0].Status != want[0].Status || r.Previous[0].Worker != want[0].Worker {
		t.Errorf("result %+v, want the second attempt completed after the interrupted first", r)
	}
	if got := lines(t, marker); !slices.Equal(got, []string{"bk.k", "bk.k.a2"}) {
		t.Errorf("marker %v: want one line per attempt", got)
	}
}

// pidIn reads a pid from a file: a number alone, or metadata.json's pid.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(data, &meta); err == nil && meta.PID > 0 {
		return meta.PID
	}
	var pid int
	if _, err := fmt.Sscan(string(data), &pid); err != nil || pid <= 0 {
		t.Fatalf("%s holds no pid: %q", path, data)
	}
	return pid
}

// alive says whether process pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the command name in parentheses: "pid (comm) S …".
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
