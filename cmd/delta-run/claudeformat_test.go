package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// The suite below is written from Claude Code's published headless
// documentation (claude -p --output-format json | stream-json, and the
// Agent SDK's message types): what a script written for claude reads must
// be there, with the documented types.

// claudeLine is any claude-stream-json line, decoded loosely as scripts do.
type claudeLine map[string]any

func (l claudeLine) str(key string) string { s, _ := l[key].(string); return s }

// checkClaudeResult checks the result object's documented fields and
// types: type, subtype, is_error, result, session_id, num_turns,
// duration_ms, total_cost_usd and usage with input_tokens/output_tokens.
func checkClaudeResult(t *testing.T, r claudeLine, runID, subtype string, isError bool) {
	t.Helper()
	if r.str("type") != "result" || r.str("subtype") != subtype || r["is_error"] != isError || r.str("session_id") != runID {
		t.Errorf("result = %v, want type result, subtype %s, is_error %v, session_id %s", r, subtype, isError, runID)
	}
	for _, key := range []string{"num_turns", "duration_ms", "total_cost_usd"} {
		if _, ok := r[key].(float64); !ok {
			t.Errorf("result.%s = %v (%T), want a number", key, r[key], r[key])
		}
	}
	if _, ok := r["result"].(string); !ok {
		t.Errorf("result.result = %v, want a string", r["result"])
	}
	u, _ := r["usage"].(map[string]any)
	if _, ok := u["input_tokens"].(float64); !ok {
		t.Errorf("result.usage = %v, want input_tokens and output_tokens", r["usage"])
	}
}

// claudeAgent is an agent with one tool, and a server whose model calls it
// and then answers.
func claudeRun(t *testing.T, format string, extra ...string) (string, string, int) {
	srv := llmtest.NewServer(t)
	srv.Reply(llm.Response{Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "greet", Arguments: `{"who":"world"}`}},
		Usage: llm.Usage{InputTokens: 40, OutputTokens: 8}})
	srv.Reply(llm.Response{Content: "hello world, done", Usage: llm.Usage{InputTokens: 60, OutputTokens: 4}})
	agentDir := writeAgent(t, "llm:\n  model: test-model\ntools:\n  - name: greet\n    exec: \"echo hello ${who}\"\n", nil)
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	args := append([]string{"run", "--agent", agentDir, "-w", t.TempDir(), "-m", "greet", "--run-id", "cl", "--format", format}, extra...)
	return runDelta(t, env, args...)
}

func TestClaudeStreamJSON(t *testing.T) {
	stdout, stderr, code := claudeRun(t, "claude-stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var lines []claudeLine
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var l claudeLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", sc.Text(), err)
		}
		if l.str("session_id") != "cl" {
			t.Errorf("line %q has session_id %q, want the run id", sc.Text(), l.str("session_id"))
		}
		lines = append(lines, l)
	}
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.str("type"))
	}
	if got := strings.Join(kinds, " "); got != "system assistant user assistant result" {
		t.Fatalf("line types = %s, want system assistant user assistant result", got)
	}
	init := lines[0]
	tools, _ := init["tools"].([]any)
	if init.str("subtype") != "init" || init.str("model") != "test-model" || init.str("cwd") == "" || len(tools) != 2 || tools[0] != "greet" {
		t.Errorf("init = %v, want subtype init, model, cwd and tools [greet ask_human]", init)
	}
	// The first assistant turn: a text block and a tool_use block.
	msg, _ := lines[1]["message"].(map[string]any)
	content, _ := msg["content"].([]any)
	if msg["role"] != "assistant" || len(content) != 2 {
		t.Fatalf("assistant message = %v, want role assistant and two blocks", msg)
	}
	text, use := content[0].(map[string]any), content[1].(map[string]any)
	input, _ := use["input"].(map[string]any)
	if text["type"] != "text" || text["text"] != "Looking." || use["type"] != "tool_use" || use["id"] != "call_1" || use["name"] != "greet" || input["who"] != "world" {
		t.Errorf("assistant content = %v", content)
	}
	// The tool's result, as a user message's tool_result block.
	umsg, _ := lines[2]["message"].(map[string]any)
	ucontent, _ := umsg["content"].([]any)
	if umsg["role"] != "user" || len(ucontent) != 1 {
		t.Fatalf("user message = %v", umsg)
	}
	res := ucontent[0].(map[string]any)
	if res["type"] != "tool_result" || res["tool_use_id"] != "call_1" || !strings.Contains(res["content"].(string), "hello world") || res["is_error"] != false {
		t.Errorf("tool_result = %v", res)
	}
	last := lines[len(lines)-1]
	checkClaudeResult(t, last, "cl", "success", false)
	if last.str("result") != "hello world, done" || last["num_turns"] != float64(2) {
		t.Errorf("result = %q after %v turns, want the answer after 2", last.str("result"), last["num_turns"])
	}
}

func TestClaudeJSON(t *testing.T) {
	stdout, stderr, code := claudeRun(t, "claude-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var r claudeLine
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&r); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON object (%v):\n%s", err, stdout)
	}
	checkClaudeResult(t, r, "cl", "success", false)
	if r.str("result") != "hello world, done" {
		t.Errorf("result = %q", r.str("result"))
	}
}

// A run stopped by its iteration limit is Claude's error_max_turns.
func TestClaudeJSONMaxTurns(t *testing.T) {
	stdout, _, code := claudeRun(t, "claude-json", "--max-iterations", "1")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var r claudeLine
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout: %v\n%s", err, stdout)
	}
	checkClaudeResult(t, r, "cl", "error_max_turns", true)
}

// A turn limit completes a Delta run (exit 0) with the model's last text;
// Claude Code calls the same stop error_max_turns.
func TestClaudeJSONTurnLimit(t *testing.T) {
	stdout, stderr, code := claudeRun(t, "claude-json", "-c", "max_tool_rounds_per_input=1")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (a turn limit completes the run)\n%s", code, stderr)
	}
	var r claudeLine
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout: %v\n%s", err, stdout)
	}
	checkClaudeResult(t, r, "cl", "error_max_turns", true)
	if r.str("result") != "Looking." {
		t.Errorf("result = %q, want the last text %q", r.str("result"), "Looking.")
	}
}
