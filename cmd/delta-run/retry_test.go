package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestRetryFailedRun: a run FAILED by its endpoint goes on with
// continue --last --retry once the cause is gone, with no invented user
// message; --message-file gives the next message.
func TestRetryFailedRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Fail(400, `{"error":{"message":"model not loaded","type":"invalid_request_error"}}`)
	srv.ReplyText("recovered")
	srv.ReplyText("second answer")
	agentDir := writeAgent(t, "llm:\n  model: test-model\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	if _, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "task", "--run-id", "r"); code != 1 {
		t.Fatalf("run exit %d, want 1 (FAILED)\n%s", code, stderr)
	}
	_, stderr, code := runDelta(t, env, "continue", "-w", ws, "--last")
	if code != 126 || !strings.Contains(stderr, "--retry") {
		t.Errorf("continue of a FAILED run without -m or --retry: exit %d, want 126 and a hint naming --retry\n%s", code, stderr)
	}
	stdout, stderr, code := runDelta(t, env, "continue", "-w", ws, "--last", "--retry", "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "recovered" {
		t.Fatalf("continue --retry: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	msgFile := filepath.Join(t.TempDir(), "msg.txt")
	if err := os.WriteFile(msgFile, []byte("from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runDelta(t, env, "continue", "--run-id", "r", "-w", ws, "--message-file", msgFile, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "second answer" {
		t.Fatalf("continue --message-file: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	var users []string
	for _, ev := range ofType(readEvents(t, filepath.Join(ws, ".delta", "r", "journal.jsonl")), journal.UserMessage) {
		users = append(users, ev.Content)
	}
	if strings.Join(users, "|") != "task|from a file" {
		t.Errorf("user messages = %q, want the task and the file's message only", users)
	}
	if _, stderr, code := runDelta(t, env, "continue", "-w", ws, "--last", "--run-id", "r"); code != 2 || !strings.Contains(stderr, "not both") {
		t.Errorf("--last with --run-id: exit %d\n%s", code, stderr)
	}
}
