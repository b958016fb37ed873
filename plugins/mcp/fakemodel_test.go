package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestRunWithFakeModel: a real delta-run whose model (the fake
// OpenAI-compatible server) calls the tools of a stdio MCP server. The
// model is offered SERVER__TOOL with the server's description and schema,
// gets the results (an error result as an error), and the server never
// sees the engine's API key.
func TestRunWithFakeModel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	bin := clitest.BinDir(t)
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(
		llm.ToolCall{ID: "c1", Name: "ts__add", Arguments: `{"a":2,"b":3}`},
		llm.ToolCall{ID: "c2", Name: "ts__fail", Arguments: `{"message":"no such row"}`},
		llm.ToolCall{ID: "c3", Name: "ts__env", Arguments: `{"name":"DELTA_API_KEY"}`})
	srv.ReplyText("all done")
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	os.MkdirAll(agentDir, 0o755)
	for name, content := range map[string]string{
		"agent.yaml":       "name: fake\nllm: {provider: openai, model: test-model}\nparallel_tool_calls: false\nmcp_servers:\n  - name: ts\n    command: " + testServer + "\n",
		"system_prompt.md": "p\n",
		"context.yaml":     "sources: [{type: journal}]\n",
	} {
		if err := os.WriteFile(filepath.Join(agentDir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", agentDir, "-w", filepath.Join(dir, "ws"), "-m", "go", "-y", "--format", "raw")
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=sk-engine-key-0123456789"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all done") {
		t.Fatalf("delta-run: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	var add *llm.ToolSpec
	for i, s := range reqs[0].Tools {
		if s.Name == "ts__add" {
			add = &reqs[0].Tools[i]
		}
	}
	if add == nil || add.Description != "Add two numbers." || !strings.Contains(string(add.Parameters), `"the first number"`) {
		t.Fatalf("tools offered = %+v, want ts__add with the server's description and schema", reqs[0].Tools)
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	if !strings.Contains(results["c1"], `{"sum":5}`) || !strings.Contains(results["c2"], "no such row") || results["c3"] != "<unset>" {
		t.Errorf("tool results the model got = %q", results)
	}
}
