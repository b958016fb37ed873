package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
)

// TestSendSteersAndFollowsUp: delta send reaches a run busy in a tool
// (USER_MESSAGE source steer before the next THOUGHT); a --follow-up
// waits for the text-only answer and starts a new cycle; a run that is
// not running is refused with exit 3 and the continue command.
func TestSendSteersAndFollowsUp(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: wait\n    exec: \"sh ${AGENT_HOME}/wait.sh\"\n",
		map[string]string{
			"script.yaml": "turns:\n  - tool_calls:\n      - name: wait\n        args: {}\n  - content: first answer\n  - content: second answer\n",
			"wait.sh":     "while [ ! -e go.on ]; do sleep 0.02; done\n",
		})
	ws := t.TempDir()
	run := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "st", "--format", "raw")
	var out, errb bytes.Buffer
	run.Stdout, run.Stderr = &out, &errb
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Kill(); run.Wait() })
	journalPath := filepath.Join(ws, ".delta", "st", "journal.jsonl")
	waitFor(t, "the tool to start", fileContains(journalPath, "ACTION_REQUEST"))

	stdout, stderr, code := runDelta(t, nil, "send", "--run-id", "st", "-w", ws, "-m", "steer this way")
	var res sendResult
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Source != "steer" || res.MessageID == "" {
		t.Fatalf("send: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if _, stderr, code := runDelta(t, nil, "send", "--last", "-w", ws, "--follow-up", "-m", "and then this"); code != 0 {
		t.Fatalf("send --follow-up: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(ws, "go.on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	if strings.TrimSpace(out.String()) != "second answer" {
		t.Errorf("result %q, want the answer after the follow-up", out.String())
	}
	var order []string
	for _, ev := range readEvents(t, journalPath) {
		switch ev.Type {
		case journal.UserMessage:
			order = append(order, "user:"+ev.Source+":"+ev.Content)
		case journal.Thought:
			order = append(order, "thought:"+ev.Content)
		}
	}
	want := "user::go|thought:|user:steer:steer this way|thought:first answer|user:follow_up:and then this|thought:second answer"
	if got := strings.Join(order, "|"); got != want {
		t.Errorf("journal order\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(errb.String(), "user (steer): steer this way") {
		t.Errorf("live stream does not show the steering message:\n%s", errb.String())
	}
	_, stderr, code = runDelta(t, nil, "send", "--run-id", "st", "-w", ws, "-m", "too late")
	if code != exitNotRunning || !strings.Contains(stderr, "is not running: it is COMPLETED") || !strings.Contains(stderr, "delta continue --run-id st") {
		t.Errorf("send to a finished run: exit %d\n%s", code, stderr)
	}
}
