package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// editAgent makes three calls: edit changes the workspace, slow writes a
// file then sleeps (the test kills its worker then), check records what
// the workspace holds when it runs. Each appends its name to $MARKER.
var editAgent = map[string]string{
	"agent.yaml": `name: editor
workspace_sync: git
llm:
  provider: scripted
  script: script.yaml
tools:
  - name: edit
    exec: "${AGENT_HOME}/edit.sh"
  - name: slow
    exec: "${AGENT_HOME}/slow.sh"
  - name: check
    exec: "${AGENT_HOME}/check.sh"
`,
	"edit.sh": `#!/bin/sh
echo edit >> "$MARKER"
echo first > one.txt
echo changed > base.txt
rm gone.txt
printf '\000\001\002' > blob.bin
`,
	"slow.sh": `#!/bin/sh
echo slow >> "$MARKER"
echo partial > two.txt
echo $$ > "$MARKER.pid"
touch "$MARKER.started"
exec sleep 600
`,
	"check.sh": `#!/bin/sh
echo check >> "$MARKER"
{ cat one.txt base.txt; ls; } > check.txt
`,
	"script.yaml": `turns:
  - tool_calls:
      - name: edit
        args: {}
  - tool_calls:
      - name: slow
        args: {}
  - tool_calls:
      - name: check
        args: {}
  - content: done
`,
}

// gitBase makes a repository with one commit for tasks to clone.
func gitBase(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"base.txt": "base\n", "gone.txt": "gone\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

// A worker SIGKILLed while the agent's second tool sleeps: with
// workspace_sync: git the next worker continues the same run on a fresh
// clone with the snapshot of the first tool's changes applied; with shared
// it continues it in the dead worker's workspace. Either way the
// interrupted call is not run again and the third sees the first's files.
func TestWorkerKilledMidToolContinuesTheRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, sync := range []string{"git", "shared"} {
		t.Run(sync, func(t *testing.T) { continuesTheRun(t, sync) })
	}
}

func continuesTheRun(t *testing.T, sync string) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 3 * time.Second})
	environ := env(t, one.URL)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	file := writeTasks(t, []map[string]any{{"id": "k", "message": "go", "env": map[string]string{"MARKER": marker},
		"workspace": map[string]string{"git": gitBase(t)}}})
	if _, code := run(t, environ, "batch", "submit", file, "--agent", writeAgent(t, editAgent), "--queue", "qg", "--batch", "bg", "--workspace-sync", sync); code != 0 {
		t.Fatal("submit failed")
	}
	first := start(t, environ, "worker", "--queue", "qg", "--ack-wait", "2s", "--name", "first", "--root", filepath.Join(root, "first"))
	poll(t, "the slow tool to start", func() bool { _, err := os.Stat(marker + ".started"); return err == nil })
	first.signal(t, syscall.SIGKILL)
	first.wait(t)
	sleeper := pidIn(t, marker+".pid")
	poll(t, "the slow tool to end with its worker", func() bool { return !alive(sleeper) })
	second := start(t, environ, "worker", "--queue", "qg", "--ack-wait", "2s", "--name", "second", "--root", filepath.Join(root, "second"))
	waiter := start(t, environ, "batch", "wait", "bg")
	if code := waiter.wait(t); code != 0 {
		t.Fatalf("batch wait exited %d:\n%s\nworker:\n%s", code, waiter.Stderr(), second.Stderr())
	}
	out, _ := run(t, environ, "batch", "results", "bg")
	r := results(t, out)["k"]
	if r.Status != cluster.ResultCompleted || r.RunID != "bg.k" || r.Attempt != 1 || r.Worker != "second" || len(r.Previous) != 0 {
		t.Errorf("result %+v, want attempt 1's run completed by the second worker", r)
	}
	if got := lines(t, marker); !slices.Equal(got, []string{"edit", "slow", "check"}) {
		t.Errorf("marker %v: want each call once, the interrupted one not again", got)
	}
	// The first call's changes (a new file, a changed one, a deleted one,
	// a binary one) are there; the interrupted call's partial write is
	// carried only by a shared workspace.
	ws, want := filepath.Join(root, "second", "bg", "bg.k"), "first\nchanged\nbase.txt\nblob.bin\ncheck.txt\none.txt\n"
	if sync == "shared" {
		ws, want = filepath.Join(root, "first", "bg", "bg.k"), "first\nchanged\nbase.txt\nblob.bin\ncheck.txt\none.txt\ntwo.txt\n"
	}
	check, err := os.ReadFile(filepath.Join(ws, "check.txt"))
	if err != nil {
		t.Fatalf("the third call left no check.txt: %v\nworker:\n%s", err, second.Stderr())
	}
	if string(check) != want {
		t.Errorf("check.txt = %q, want %q", check, want)
	}
	if blob, _ := os.ReadFile(filepath.Join(ws, "blob.bin")); string(blob) != "\x00\x01\x02" {
		t.Errorf("blob.bin = %q", blob)
	}
	journal, err := os.ReadFile(filepath.Join(ws, ".delta", "bg.k", "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(journal), "interrupted") {
		t.Errorf("the journal does not report the slow call interrupted:\n%s", journal)
	}
	said := "continuing run bg.k"
	if sync == "git" {
		said = "restored from the snapshot"
	}
	if !strings.Contains(second.Stderr(), said) {
		t.Errorf("the second worker did not say %q:\n%s", said, second.Stderr())
	}
}
