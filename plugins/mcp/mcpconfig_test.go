package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestMCPConfigFiles: the MCP configs users already have — Claude
// Desktop's {"mcpServers": …} JSON and Codex's TOML — given to a real
// delta-run with --mcp-config start the test server, whose tools the model
// is offered and can call.
func TestMCPConfigFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	bin := clitest.BinDir(t)
	for _, tc := range []struct{ name, file, body string }{
		{"claude desktop", "claude_desktop_config.json", `{"mcpServers": {"ts": {"command": "` + testServer + `", "args": [], "env": {}}}}`},
		{"codex", "config.toml", "[mcp_servers.ts]\ncommand = \"" + testServer + "\"\nenabled_tools = [\"add\", \"echo\"]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.ReplyToolCalls(llm.ToolCall{ID: "c1", Name: "ts__add", Arguments: `{"a":2,"b":3}`})
			srv.ReplyText("all done")
			dir := t.TempDir()
			agentDir := filepath.Join(dir, "agent")
			os.MkdirAll(agentDir, 0o755)
			files := map[string]string{
				filepath.Join(agentDir, "agent.yaml"):       "name: cfg\nllm: {provider: openai, model: test-model}\n",
				filepath.Join(agentDir, "system_prompt.md"): "p\n",
				filepath.Join(agentDir, "context.yaml"):     "sources: [{type: journal}]\n",
				filepath.Join(dir, tc.file):                 tc.body,
			}
			for name, content := range files {
				if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", agentDir, "-w", filepath.Join(dir, "ws"), "-m", "go", "--format", "raw",
				"--mcp-config", filepath.Join(dir, tc.file))
			cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=sk-engine-key-0123456789"}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("delta-run --mcp-config %s: %v\n%s", tc.file, err, out)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			var names []string
			for _, s := range reqs[0].Tools {
				names = append(names, s.Name)
			}
			if !slices.Contains(names, "ts__add") {
				t.Fatalf("tools offered = %v, want the server's ts__add", names)
			}
			if tc.name == "codex" && slices.Contains(names, "ts__fail") {
				t.Errorf("tools offered = %v, want only Codex's enabled_tools (add, echo)", names)
			}
			var result string
			for _, m := range reqs[1].Messages {
				if m.Role == llm.RoleTool && m.ToolCallID == "c1" {
					result = m.Content
				}
			}
			if !strings.Contains(result, `{"sum":5}`) {
				t.Errorf("the model got %q for ts__add, want the server's sum", result)
			}
		})
	}
}
