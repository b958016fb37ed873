package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// toolNames are the tools a request offered.
func toolNames(r llmtest.Recorded) string {
	var names []string
	for _, s := range r.Tools {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// systemText is the request's system messages, joined.
func systemText(r llmtest.Recorded) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == llm.RoleSystem {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// TestOverridesChangeTheRequest: each per-run override changes what the
// model endpoint receives; ENGINE_START records them, and continue applies
// them again unless it is given others.
func TestOverridesChangeTheRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyText("first")
	srv.ReplyText("second")
	srv.ReplyText("third")
	agentDir := writeAgent(t, "llm:\n  model: agent-model\n  temperature: 0.5\ntools:\n"+
		"  - name: read_a\n    exec: \"true\"\n  - name: read_b\n    exec: \"true\"\n  - name: write_a\n    exec: \"true\"\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	_, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "--run-id", "ov", "-m", "go", "--format", "raw",
		"--model", "other-model", "-c", "llm.temperature=0.2", "-c", "llm.seed=7", "--append-system-prompt", "Answer in French.",
		"--allowed-tools", "read_*", "--disallowed-tools", "read_b")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runDelta(t, env, "continue", "--run-id", "ov", "-w", ws, "-m", "again", "--format", "raw")
	if code != 0 {
		t.Fatalf("continue: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runDelta(t, env, "continue", "--run-id", "ov", "-w", ws, "-m", "more", "--format", "raw", "-c", "llm.temperature=0.9", "--allowed-tools", "write_a")
	if code != 0 {
		t.Fatalf("continue with new overrides: exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []struct {
		temp  float64
		tools string
	}{{0.2, "read_a,ask_human"}, {0.2, "read_a,ask_human"}, {0.9, "write_a,ask_human"}} {
		r := reqs[i]
		if r.Model != "other-model" || r.Params["temperature"] != want.temp || r.Params["seed"] != float64(7) {
			t.Errorf("request %d: model %q, temperature %v, seed %v; want other-model, %v, 7", i+1, r.Model, r.Params["temperature"], r.Params["seed"], want.temp)
		}
		if got := toolNames(r); got != want.tools {
			t.Errorf("request %d offered %s, want %s", i+1, got, want.tools)
		}
		if sys := systemText(r); !strings.Contains(sys, "You are a test agent.") || !strings.HasSuffix(sys, "Answer in French.") {
			t.Errorf("request %d system messages = %q, want the prompt, then the appended text", i+1, sys)
		}
	}
	starts := ofType(readEvents(t, filepath.Join(ws, ".delta", "ov", "journal.jsonl")), journal.EngineStart)
	var cfg struct {
		Model     string
		Overrides runOverrides
	}
	if len(starts) != 3 || json.Unmarshal(starts[2].Config, &cfg) != nil {
		t.Fatalf("ENGINE_STARTs = %d, want 3 with a config", len(starts))
	}
	if cfg.Model != "other-model" || strings.Join(cfg.Overrides.Config, " ") != "llm.temperature=0.2 llm.seed=7 llm.temperature=0.9" ||
		strings.Join(cfg.Overrides.AllowedTools, ",") != "write_a" || cfg.Overrides.AppendSystemPrompt != "Answer in French." {
		t.Errorf("last ENGINE_START config = %+v", cfg)
	}
}

// A bad -c key is a usage error naming the valid keys, before any run.
func TestOverrideBadKey(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  model: m\n", nil)
	_, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", t.TempDir(), "-m", "go", "-c", "max_iteration=3")
	if code != 2 || !strings.Contains(stderr, `did you mean "max_iterations"`) || !strings.Contains(stderr, "valid keys: name,") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming max_iterations and the valid keys", code, stderr)
	}
}
