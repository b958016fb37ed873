package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestParallelToolCalls: the two calls of one turn run at the same time
// (await waits for the file mark writes, and would give up run one after
// the other), and the model gets their results in call order although
// the second finished first.
func TestParallelToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "c1", Name: "await", Arguments: "{}"}, llm.ToolCall{ID: "c2", Name: "mark", Arguments: "{}"})
	srv.ReplyText("done")
	agentDir := writeAgent(t, "llm:\n  model: test-model\ntools:\n"+
		"  - name: await\n    exec: \"sh ${AGENT_HOME}/await.sh\"\n"+
		"  - name: mark\n    exec: \"touch marked\"\n",
		map[string]string{"await.sh": "i=0\nwhile [ ! -e marked ]; do i=$((i+1)); [ $i -gt 1500 ] && { echo alone; exit 1; }; sleep 0.02; done\necho met\n"})
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	if _, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "par"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()
	var results []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.ToolCallID+"="+strings.TrimSpace(m.Content))
		}
	}
	if got := strings.Join(results, " "); got != "c1=met c2=" && got != "c1=met c2=(no output)" {
		t.Errorf("tool results sent = %q, want c1 (met) then c2", got)
	}
}

// TestKill9DuringParallelBatch: kill -9 while two calls of a batch run
// and a third has finished; continue keeps the finished result, reports
// the two as interrupted without running them again, and goes on.
func TestKill9DuringParallelBatch(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n"+
		"  - name: count\n    exec: \"sh ${AGENT_HOME}/count.sh ${name}\"\n    parameters:\n      - name: name\n",
		map[string]string{
			"script.yaml": "turns:\n  - tool_calls:\n      - name: count\n        args: {name: fast}\n      - name: count\n        args: {name: slow1}\n      - name: count\n        args: {name: slow2}\n  - content: done\n",
			"count.sh":    "echo ran >> \"$1.count\"\ncase $1 in slow*) echo $$ > \"$1.pid\"; sleep 30;; esac\n",
		})
	ws := t.TempDir()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "k9")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	journalPath := filepath.Join(ws, ".delta", "k9", "journal.jsonl")
	waitFor(t, "the fast call's result and both slow calls running", func() bool {
		_, e1 := os.Stat(filepath.Join(ws, "slow1.pid"))
		_, e2 := os.Stat(filepath.Join(ws, "slow2.pid"))
		return e1 == nil && e2 == nil && fileContains(journalPath, `"type":"ACTION_RESULT"`)()
	})
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	stdout, stderr, code := runDelta(t, nil, "continue", "--run-id", "k9", "-w", ws, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "done" {
		t.Fatalf("continue: exit %d, stdout %q\n%s\nfirst run:\n%s", code, stdout, stderr, errb.String())
	}
	for _, name := range []string{"fast", "slow1", "slow2"} {
		data, _ := os.ReadFile(filepath.Join(ws, name+".count"))
		if n := strings.Count(string(data), "ran"); n != 1 {
			t.Errorf("%s ran %d times, want once", name, n)
		}
	}
	evs := readEvents(t, journalPath)
	requests, results := 0, map[string]journal.Event{}
	for _, ev := range evs {
		switch ev.Type {
		case journal.ActionRequest:
			if len(results) > 0 {
				t.Errorf("ACTION_REQUEST %s after a result: the batch's requests come first", ev.CallID)
			}
			requests++
		case journal.ActionResult:
			if _, dup := results[ev.CallID]; dup {
				t.Errorf("two results for %s", ev.CallID)
			}
			results[ev.CallID] = ev
		}
	}
	if requests != 3 || len(results) != 3 {
		t.Fatalf("%d requests, %d results; want 3 and 3", requests, len(results))
	}
	interrupted := 0
	for _, r := range results {
		if r.ObservationContent == engine.InterruptedCallObservation {
			interrupted++
		}
	}
	if interrupted != 2 {
		t.Errorf("%d results reported as interrupted, want the 2 slow calls", interrupted)
	}
	for _, name := range []string{"slow1", "slow2"} {
		data, _ := os.ReadFile(filepath.Join(ws, name+".pid"))
		pid := 0
		for _, c := range strings.TrimSpace(string(data)) {
			pid = pid*10 + int(c-'0')
		}
		waitFor(t, name+" to be gone after kill -9", func() bool { return processGone(pid) })
	}
}
