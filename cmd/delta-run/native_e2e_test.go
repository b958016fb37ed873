package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/runs"
)

// nativeTools are a tool that fails and one that works, called in
// parallel by the model.
const nativeTools = "tools:\n  - name: fail_tool\n    exec: \"false\"\n  - name: greet\n    exec: \"echo hello ${name}\"\n"

// runJSON runs delta-run with --format json and decodes the runs.Result.
func runJSON(t *testing.T, env []string, wantCode int, args ...string) runs.Result {
	t.Helper()
	stdout, stderr, code := runDelta(t, env, append(args, "--format", "json")...)
	if code != wantCode {
		t.Fatalf("delta-run %s: exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, stderr)
	}
	var res runs.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not a runs.Result: %v\n%s", err, stdout)
	}
	return res
}

// firstThought is the run's first THOUGHT.
func firstThought(t *testing.T, ws, id string) journal.Event {
	t.Helper()
	for _, ev := range readEvents(t, filepath.Join(ws, ".delta", id, "journal.jsonl")) {
		if ev.Type == journal.Thought {
			return ev
		}
	}
	t.Fatal("no THOUGHT in the journal")
	return journal.Event{}
}

// TestRunAgainstAnthropicServer: a real run against the fake Messages
// endpoint: two parallel calls after a signed thinking block; the second
// request sends the thinking back, says which result is an error, and
// reads the first request's prefix from the prompt cache; the usage of
// the THOUGHT and the runs.Result count the cache. Streamed (--front-end)
// and not.
func TestRunAgainstAnthropicServer(t *testing.T) {
	for _, args := range [][]string{nil, {"--front-end"}} {
		t.Run(fmt.Sprint("streamed=", len(args) > 0), func(t *testing.T) { anthropicRun(t, args) })
	}
}

func anthropicRun(t *testing.T, extra []string) {
	srv := llmtest.NewAnthropic(t)
	srv.Reply(llm.Response{Content: "Calling both.", Reasoning: []llm.Reasoning{{Type: "thinking", Text: "plan", Signature: "c2ln"}},
		ToolCalls: []llm.ToolCall{tc("fail_tool", `{}`), tc("greet", `{"name":"bob"}`)}})
	srv.Reply(llm.Response{Content: "all done"})
	agentDir := writeAgent(t, "llm:\n  provider: anthropic\n  model: claude-sonnet-4-5\n  reasoning_effort: low\n"+nativeTools, nil)
	ws := t.TempDir()
	env := []string{"ANTHROPIC_API_KEY=" + testKey, "ANTHROPIC_BASE_URL=" + srv.URL}
	res := runJSON(t, env, 0, append([]string{"run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "a1"}, extra...)...)
	if res.Status != "COMPLETED" || string(res.Result) != `"all done"` {
		t.Fatalf("runs.Result = %+v", res)
	}
	u := res.Metrics.Usage
	if u.CacheReadTokens == 0 || u.CacheWriteTokens == 0 || u.InputTokens < u.CacheReadTokens+u.CacheWriteTokens || res.Metrics.Usage.TotalCostUSD <= 0 {
		t.Errorf("runs.Result usage %+v: want cache reads and writes within the input, and a cost", u)
	}
	th := firstThought(t, ws, "a1")
	if th.Usage == nil || th.Usage.CacheWriteTokens == 0 || len(th.Reasoning) != 1 || th.Reasoning[0].Signature != "c2ln" {
		t.Errorf("first THOUGHT usage %+v, reasoning %+v", th.Usage, th.Reasoning)
	}
	reqs := srv.Requests()
	if streamed := len(extra) > 0; len(reqs) != 2 || (reqs[0]["stream"] == true) != streamed {
		t.Fatalf("%d requests (stream %v), want 2 (stream %v)", len(reqs), len(reqs) > 0 && reqs[0]["stream"] == true, streamed)
	}
	msgs := reqs[1]["messages"].([]any)
	assistant, _ := json.Marshal(msgs[1])
	results, _ := json.Marshal(msgs[2])
	if !strings.HasPrefix(string(assistant), `{"content":[{"signature":"c2ln","thinking":"plan","type":"thinking"}`) {
		t.Errorf("assistant turn sent back: %s", assistant)
	}
	if strings.Count(string(results), `"is_error":true`) != 1 || !strings.Contains(string(results), "hello bob") {
		t.Errorf("tool results sent: %s; want exactly the failed one marked is_error", results)
	}
}

// TestRunAgainstGeminiServer: a real run, streamed (--front-end) and not,
// against the fake Gemini endpoint: the thought signatures come back on
// their parts, the failed call's result is an error, and the thought
// tokens are in the usage.
func TestRunAgainstGeminiServer(t *testing.T) {
	for _, args := range [][]string{nil, {"--front-end"}} {
		t.Run(fmt.Sprint("streamed=", len(args) > 0), func(t *testing.T) { geminiRun(t, args) })
	}
}

func geminiRun(t *testing.T, extra []string) {
	srv := llmtest.NewGemini(t)
	srv.Reply(llm.Response{Content: "Calling both.", ToolCalls: []llm.ToolCall{{ID: "fc1", Name: "greet", Arguments: `{"name":"ann"}`}, tc("fail_tool", `{}`)},
		Reasoning: []llm.Reasoning{{Type: "thought", Text: "plan", Signature: "czE="}, {Type: "thought_signature", Signature: "czI=", Data: "fc1"}},
		Usage:     llm.Usage{InputTokens: 500, OutputTokens: 80, CacheReadTokens: 200, ReasoningTokens: 60}})
	srv.Reply(llm.Response{Content: "all done"})
	agentDir := writeAgent(t, "llm:\n  provider: gemini\n  model: gemini-2.5-flash\n  reasoning_effort: high\n"+nativeTools, nil)
	ws := t.TempDir()
	env := []string{"GEMINI_API_KEY=" + testKey, "GEMINI_BASE_URL=" + srv.URL}
	res := runJSON(t, env, 0, append([]string{"run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "g1"}, extra...)...)
	if res.Status != "COMPLETED" || string(res.Result) != `"all done"` {
		t.Fatalf("runs.Result = %+v", res)
	}
	if u := res.Metrics.Usage; u.ReasoningTokens != 60 || u.CacheReadTokens != 200 {
		t.Errorf("runs.Result usage %+v: want 60 reasoning and 200 cached tokens", u)
	}
	reqs := srv.Requests()
	if streamed := len(extra) > 0; len(reqs) != 2 || reqs[0].Stream != streamed {
		t.Fatalf("%d requests (stream %v), want 2 (stream %v)", len(reqs), len(reqs) > 0 && reqs[0].Stream, streamed)
	}
	contents, _ := json.Marshal(reqs[1].Body["contents"])
	for _, want := range []string{`"thought":true,"thoughtSignature":"czE="`, `"name":"greet"},"thoughtSignature":"czI="`,
		`"response":{"output":"hello ann\n"}`, `"name":"fail_tool","response":{"error":`} {
		if !strings.Contains(string(contents), want) {
			t.Errorf("second request's contents do not hold %s:\n%s", want, contents)
		}
	}
}

// TestMaxCost: with every call costing far more than the limit, the run
// makes its first call (nothing to estimate from), then stops before the
// second: FAILED, max_cost, exit 1. Continued with a higher limit it goes
// on and completes.
func TestMaxCost(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	srv.Reply(llm.Response{ToolCalls: []llm.ToolCall{tc("greet", `{"name":"bob"}`)}})
	srv.Reply(llm.Response{Content: "all done"})
	agentDir := writeAgent(t, "llm:\n  provider: anthropic\n  model: claude-sonnet-4-5\n"+
		"  prices: {claude-sonnet-4-5: {input_per_mtok: 1000, output_per_mtok: 1000}}\n"+nativeTools, nil)
	ws := t.TempDir()
	env := []string{"ANTHROPIC_API_KEY=" + testKey, "ANTHROPIC_BASE_URL=" + srv.URL}
	res := runJSON(t, env, 1, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "c1", "--max-cost", "0.01")
	if res.Status != "FAILED" || res.Error == nil || res.Error.Type != "max_cost" || !strings.Contains(res.Error.Message, "over the cost limit of $0.0100") {
		t.Fatalf("runs.Result = %+v, want FAILED max_cost", res)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	if _, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--max-cost=-1"); code != 2 || !strings.Contains(stderr, "--max-cost must be a positive") {
		t.Errorf("--max-cost -1: exit %d\n%s", code, stderr)
	}
	res = runJSON(t, env, 0, "continue", "-w", ws, "--run-id", "c1", "--retry", "--max-cost", "1000")
	if res.Status != "COMPLETED" || len(srv.Requests()) != 2 {
		t.Errorf("continued: %+v after %d calls, want COMPLETED after 2", res, len(srv.Requests()))
	}
}
