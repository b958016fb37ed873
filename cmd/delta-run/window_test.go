package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/runs"
)

// TestContextOverflowRun: an endpoint's "maximum context length" refusal
// ends the run FAILED with the error type context_overflow and a hint that
// says what to change.
func TestContextOverflowRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Fail(400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`)
	agentDir := writeAgent(t, "llm:\n  model: gpt-4o\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	stdout, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "big", "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	var res runs.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not a RunResult: %v\n%s", err, stdout)
	}
	if res.Status != "FAILED" || res.Error == nil || res.Error.Type != "context_overflow" ||
		!strings.Contains(res.Error.Details, "context window 128000") || !strings.Contains(res.Error.Details, "fold older turns") {
		t.Errorf("result error = %+v, want context_overflow with the window of gpt-4o and a hint", res.Error)
	}
}

// TestContextWindowSetting: llm.context_window overrides the known size,
// and the warning is journaled as a SYSTEM_MESSAGE of kind context_window.
func TestContextWindowSetting(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyText("done")
	agentDir := writeAgent(t, "llm:\n  model: gpt-4o\n  context_window: 20\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	if _, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "w"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var warnings []journal.Event
	for _, ev := range ofType(readEvents(t, filepath.Join(ws, ".delta", "w", "journal.jsonl")), journal.SystemMessage) {
		if ev.Kind == journal.KindContextWindow {
			warnings = append(warnings, ev)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Content, "of 20 tokens") {
		t.Errorf("context_window warnings = %+v, want one against a window of 20", warnings)
	}
}
