package main

import (
	"encoding/json"
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

// gateAgent's tool appends the run id to $MARKER, then waits until the
// file $GATE exists.
var gateAgent = map[string]string{
	"agent.yaml": `name: gated
llm:
  provider: scripted
  script: script.yaml
tools:
  - name: mark
    exec: "${AGENT_HOME}/gate.sh"
`,
	"gate.sh": `#!/bin/sh
echo "$DELTA_RUN_ID" >> "$MARKER"
while [ ! -e "$GATE" ]; do sleep 0.05; done
`,
	"script.yaml": markAgent["script.yaml"],
}

func TestWorkerDrainsOnSIGTERM(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	c := clustertest.Connect(t, one.URL)
	environ := env(t, one.URL)
	root := t.TempDir()
	marker, gateA, gateB := filepath.Join(root, "marker"), filepath.Join(root, "gateA"), filepath.Join(root, "gateB")
	file := writeTasks(t, []map[string]any{
		{"id": "a", "message": "go", "env": map[string]string{"MARKER": marker, "GATE": gateA}},
		{"id": "b", "message": "go", "env": map[string]string{"MARKER": marker, "GATE": gateB}},
	})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, gateAgent), "--queue", "qd", "--batch", "bd"); code != 0 {
		t.Fatal("submit failed")
	}
	// One SIGTERM: the running task finishes, the other is not started.
	w1 := start(t, environ, "worker", "--queue", "qd", "--name", "w1", "--root", filepath.Join(root, "w1"))
	poll(t, "task a to run", func() bool { return len(lines(t, marker)) == 1 })
	poll(t, "the worker registered busy", func() bool {
		ws, _ := c.Workers(ctxT(t))
		return len(ws) == 1 && ws[0].Name == "w1" && ws[0].Queue == "qd" && ws[0].Slots == 1 && ws[0].Busy == 1 && ws[0].PID == w1.cmd.Process.Pid
	})
	w1.signal(t, syscall.SIGTERM)
	poll(t, "the worker to drain", func() bool { return strings.Contains(w1.Stderr(), "draining") })
	if err := os.WriteFile(gateA, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := w1.wait(t); code != 0 {
		t.Fatalf("the drained worker exited %d", code)
	}
	if got := lines(t, marker); !slices.Equal(got, []string{"bd.a"}) {
		t.Fatalf("marker %v: a draining worker started another task", got)
	}
	if r, err := c.TaskResult(ctxT(t), "bd", "a"); err != nil || r == nil || r.Status != cluster.ResultCompleted {
		t.Fatalf("task a: %+v, %v", r, err)
	}
	if ws, _ := c.Workers(ctxT(t)); len(ws) != 0 {
		t.Errorf("the stopped worker is still registered: %+v", ws)
	}
	// Two SIGTERMs: the running task is interrupted and handed back.
	w2 := start(t, environ, "worker", "--queue", "qd", "--name", "w2", "--root", filepath.Join(root, "w2"))
	poll(t, "task b to run", func() bool { return len(lines(t, marker)) == 2 })
	w2.signal(t, syscall.SIGTERM)
	poll(t, "the worker to drain", func() bool { return strings.Contains(w2.Stderr(), "draining") })
	w2.signal(t, syscall.SIGTERM)
	if code := w2.wait(t); code != 0 {
		t.Fatalf("the interrupted worker exited %d", code)
	}
	if r, err := c.TaskResult(ctxT(t), "bd", "b"); err != nil || r != nil {
		t.Fatalf("the interrupted task b has a result: %+v, %v", r, err)
	}
	if err := os.WriteFile(gateB, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start(t, environ, "worker", "--queue", "qd", "--name", "w3", "--root", filepath.Join(root, "w3"))
	var r *cluster.Result
	poll(t, "task b's result", func() bool { r, _ = c.TaskResult(ctxT(t), "bd", "b"); return r != nil })
	if r.Status != cluster.ResultCompleted || r.RunID != "bd.b.a2" || r.Attempt != 2 || len(r.Previous) != 1 ||
		r.Previous[0].RunID != "bd.b" || r.Previous[0].Status != cluster.AttemptInterrupted {
		t.Errorf("task b: %+v, want a second attempt after the interrupted first", r)
	}
}

// TestExitCodes: a configuration error (126) fails the task at once, not
// retried; a run waiting for a human (101) is a "waiting" result.
func TestExitCodes(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	environ := env(t, one.URL)
	root := t.TempDir()
	marker, ask := filepath.Join(root, "marker"), filepath.Join(root, "ask.yaml")
	script := "turns:\n  - tool_calls:\n      - name: ask_human\n        args: {prompt: \"Which environment?\"}\n  - content: deployed\n"
	if err := os.WriteFile(ask, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	file := writeTasks(t, []map[string]any{
		{"id": "bad", "message": "go", "llm": "bogus:x", "env": map[string]string{"MARKER": marker}},
		{"id": "good", "message": "go", "env": map[string]string{"MARKER": marker}},
		{"id": "ask", "message": "deploy", "llm": "scripted:" + ask},
	})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, markAgent), "--queue", "qc", "--batch", "bc", "--max-attempts", "3"); code != 0 {
		t.Fatal("submit failed")
	}
	start(t, environ, "worker", "--queue", "qc", "--root", root)
	if _, code := run(t, environ, "batch", "wait", "bc"); code != 1 {
		t.Fatalf("batch wait exited %d, want 1 (a task failed)", code)
	}
	out, _ := run(t, environ, "batch", "results", "bc")
	got := results(t, out)
	if r := got["bad"]; r.Status != cluster.ResultFailed || r.Attempt != 1 || !strings.Contains(r.Error, "configuration error (exit 126)") ||
		!strings.Contains(r.Error, `unknown llm provider "bogus"`) {
		t.Errorf("the misconfigured task: %+v, want failed at its first attempt", r)
	}
	if r := got["good"]; r.Status != cluster.ResultCompleted {
		t.Errorf("the good task: %+v", r)
	}
	if r := got["ask"]; r.Status != cluster.ResultWaiting || !strings.Contains(string(r.Result), `"prompt":"Which environment?"`) {
		t.Errorf("the task asking a human: %+v, want waiting with the question", r)
	}
	out, _ = run(t, environ, "batch", "status", "bc", "--json")
	var st cluster.BatchStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Attempts != 3 || st.Failed != 1 || st.Completed != 1 || st.Waiting != 1 {
		t.Errorf("status %s (%v): want 3 attempts, 1 failed, 1 completed, 1 waiting", out, err)
	}
}

// TestEndedRunIsNotRunAgain: a worker died after its run ended, before it
// published the result; the run's mirrored journal ends COMPLETED, so the
// next worker publishes that result instead of running the task again.
func TestEndedRunIsNotRunAgain(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	environ := env(t, one.URL)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	file := writeTasks(t, []map[string]any{{"id": "r", "message": "go", "env": map[string]string{"MARKER": marker}}})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, markAgent), "--queue", "qr", "--batch", "br"); code != 0 {
		t.Fatal("submit failed")
	}
	// What the dead worker left: its attempt marked running, and the
	// mirrored journal of its run, which ended.
	rec, err := c.TaskRecord(ctx, "br", "r")
	if err != nil {
		t.Fatal(err)
	}
	rec.Attempts = []cluster.Attempt{{RunID: "br.r", Status: cluster.AttemptRunning, Worker: "ghost", Host: "elsewhere"}}
	if err := c.SaveTaskRecord(ctx, "br", "r", rec); err != nil {
		t.Fatal(err)
	}
	j, err := c.OpenJournal(ctx, "br.r", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range []string{
		`{"type":"ENGINE_START","seq":1,"run_id":"br.r"}`,
		`{"type":"THOUGHT","seq":2,"content":"{\"answer\": 42}","usage":{"input_tokens":5,"output_tokens":3}}`,
		`{"type":"ENGINE_END","seq":3,"status":"COMPLETED"}`,
	} {
		if err := j.Append(ctx, []byte(line), i+1); err != nil {
			t.Fatal(err)
		}
	}
	start(t, environ, "worker", "--queue", "qr", "--root", root)
	if _, code := run(t, environ, "batch", "wait", "br"); code != 0 {
		t.Fatalf("batch wait exited %d", code)
	}
	r, err := c.TaskResult(ctx, "br", "r")
	if err != nil || r == nil {
		t.Fatalf("no result: %v", err)
	}
	if r.Status != cluster.ResultCompleted || r.RunID != "br.r" || r.Attempt != 1 || r.Worker != "ghost" || string(r.Result) != `{"answer":42}` ||
		string(r.Usage) != `{"input_tokens":5,"output_tokens":3}` {
		t.Errorf("result %+v, want the ended run's", r)
	}
	if got := lines(t, marker); len(got) != 0 {
		t.Errorf("the task ran again: %v", got)
	}
}

// TestGiveUpAfterMaxAttempts: a task whose attempts are used up (here its
// one attempt's worker died) is recorded failed, not run again.
func TestGiveUpAfterMaxAttempts(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	c := clustertest.Connect(t, one.URL)
	ctx := ctxT(t)
	environ := env(t, one.URL)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	file := writeTasks(t, []map[string]any{{"id": "g", "message": "go", "env": map[string]string{"MARKER": marker}}})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, markAgent), "--queue", "qg", "--batch", "bg", "--max-attempts", "1"); code != 0 {
		t.Fatal("submit failed")
	}
	rec, err := c.TaskRecord(ctx, "bg", "g")
	if err != nil {
		t.Fatal(err)
	}
	rec.Attempts = []cluster.Attempt{{RunID: "bg.g", Status: cluster.AttemptRunning, Worker: "ghost"}}
	if err := c.SaveTaskRecord(ctx, "bg", "g", rec); err != nil {
		t.Fatal(err)
	}
	start(t, environ, "worker", "--queue", "qg", "--root", root)
	if _, code := run(t, environ, "batch", "wait", "bg"); code != 1 {
		t.Fatalf("batch wait exited %d, want 1", code)
	}
	r, err := c.TaskResult(ctx, "bg", "g")
	if err != nil || r == nil {
		t.Fatalf("no result: %v", err)
	}
	if r.Status != cluster.ResultFailed || r.Error != "gave up after 1 attempt" || r.Attempt != 1 || len(r.Previous) != 1 ||
		r.Previous[0].Status != cluster.AttemptInterrupted {
		t.Errorf("result %+v, want failed after the one interrupted attempt", r)
	}
	if got := lines(t, marker); len(got) != 0 {
		t.Errorf("the task ran past its attempts: %v", got)
	}
}
