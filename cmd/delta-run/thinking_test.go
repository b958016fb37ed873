package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// fakeMessages is an Anthropic Messages endpoint answering canned bodies
// in turn and keeping the request bodies.
type fakeMessages struct {
	mu      sync.Mutex
	answers []string
	bodies  []map[string]any
}

func newFakeMessages(t *testing.T, answers ...string) (*fakeMessages, string) {
	f := &fakeMessages{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.bodies = append(f.bodies, body)
		if r.URL.Path != "/v1/messages" || len(f.answers) == 0 {
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"unexpected request"}}`, 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, f.answers[0])
		f.answers = f.answers[1:]
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// TestThinkingRoundTrip: with llm.reasoning_effort on Anthropic, the
// THOUGHT keeps the thinking blocks and the response id, and a run paused
// on ask_human and continued by another process sends them back first in
// their turn, exactly, as the API requires for tool use with thinking.
func TestThinkingRoundTrip(t *testing.T) {
	f, url := newFakeMessages(t,
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
		  "content":[{"type":"thinking","thinking":"I need the user's name.","signature":"U0lHLTE="},
		    {"type":"redacted_thinking","data":"UkVEQUNURUQ="},
		    {"type":"tool_use","id":"toolu_1","name":"ask_human","input":{"prompt":"Your name?"}}],
		  "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`,
		`{"id":"msg_2","type":"message","role":"assistant","model":"claude-test",
		  "content":[{"type":"text","text":"Hello, Alice."}],
		  "stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":5}}`)
	agentDir := writeAgent(t, "llm:\n  provider: anthropic\n  model: claude-test\n  reasoning_effort: low\n", nil)
	ws := t.TempDir()
	env := []string{"ANTHROPIC_API_KEY=" + testKey, "DELTA_BASE_URL=" + url}

	_, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "greet me", "--run-id", "think")
	if code != 101 {
		t.Fatalf("run exit %d, want 101 (waiting for the name)\n%s", code, stderr)
	}
	stdout, stderr, code := runDelta(t, env, "continue", "--run-id", "think", "-w", ws, "-m", "Alice", "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "Hello, Alice." {
		t.Fatalf("continue exit %d, stdout %q\n%s", code, stdout, stderr)
	}

	thoughts := ofType(readEvents(t, filepath.Join(ws, ".delta", "think", "journal.jsonl")), journal.Thought)
	wantReasoning := []llm.Reasoning{
		{Type: "thinking", Text: "I need the user's name.", Signature: "U0lHLTE="},
		{Type: "redacted_thinking", Data: "UkVEQUNURUQ="},
	}
	if len(thoughts) != 2 || thoughts[0].ResponseID != "msg_1" || thoughts[1].ResponseID != "msg_2" {
		t.Fatalf("THOUGHTs = %+v", thoughts)
	}
	if diff := cmp.Diff(wantReasoning, thoughts[0].Reasoning); diff != "" {
		t.Errorf("THOUGHT reasoning (-want +got):\n%s", diff)
	}

	if len(f.bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(f.bodies))
	}
	if diff := cmp.Diff(map[string]any{"type": "enabled", "budget_tokens": 2048.0}, f.bodies[1]["thinking"]); diff != "" {
		t.Errorf("thinking parameter (-want +got):\n%s", diff)
	}
	var turn map[string]any
	for _, m := range f.bodies[1]["messages"].([]any) {
		if m.(map[string]any)["role"] == "assistant" {
			turn = m.(map[string]any)
		}
	}
	want := []any{
		map[string]any{"type": "thinking", "thinking": "I need the user's name.", "signature": "U0lHLTE="},
		map[string]any{"type": "redacted_thinking", "data": "UkVEQUNURUQ="},
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "ask_human", "input": map[string]any{"prompt": "Your name?"}},
	}
	if diff := cmp.Diff(want, turn["content"]); diff != "" {
		t.Errorf("assistant turn sent back after continue (-want +got):\n%s", diff)
	}
}
