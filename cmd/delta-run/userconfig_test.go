package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestUserConfig: ~/.config/delta/config.yaml gives a run what the agent
// leaves open — the model, approvals, environment — below the
// environment and agent.yaml.
func TestUserConfig(t *testing.T) {
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "delta"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "llm:\n  model: user-model\napprovals: deny\nenv:\n  GREETING: from-user-config\n  KEPT: from-user-config\n"
	if err := os.WriteFile(filepath.Join(cfgHome, "delta", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	agentDir := writeAgent(t, "tools:\n  - name: show\n    exec: \"printenv GREETING KEPT\"\n  - name: rm_all\n    exec: \"true\"\napproval:\n  - tool: rm_all\n    decision: ask\n", nil)
	run := func(id string, env ...string) llmtest.Recorded {
		srv := llmtest.NewServer(t)
		srv.ReplyToolCalls(llm.ToolCall{ID: "c1", Name: "show", Arguments: `{}`}, llm.ToolCall{ID: "c2", Name: "rm_all", Arguments: `{}`})
		srv.ReplyText("done")
		env = append(env, "XDG_CONFIG_HOME="+cfgHome, "DELTA_BASE_URL="+srv.URL, "DELTA_API_KEY="+testKey)
		_, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", t.TempDir(), "-m", "go", "--run-id", id, "--format", "raw")
		if code != 0 {
			t.Fatalf("run %s: exit %d (approvals: deny should not pause)\n%s", id, code, stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("run %s: %d requests, want 2", id, len(reqs))
		}
		return reqs[1]
	}
	results := func(r llmtest.Recorded) map[string]string {
		out := map[string]string{}
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				out[m.ToolCallID] = m.Content
			}
		}
		return out
	}
	r := run("u1")
	got := results(r)
	if r.Model != "user-model" || !strings.Contains(got["c1"], "from-user-config") || !strings.Contains(got["c2"], "denied") {
		t.Errorf("model %q, results %q; want user-model, the config's env and rm_all denied", r.Model, got)
	}
	r = run("u2", "DELTA_MODEL=env-model", "KEPT=from-environment")
	got = results(r)
	if r.Model != "env-model" || !strings.Contains(got["c1"], "from-environment") {
		t.Errorf("model %q, results %q; want the environment's model and KEPT", r.Model, got)
	}
}
