package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestSubagentOverOpenAIServer: a parent on one endpoint spawns a child of
// another agent on a second endpoint with a model override. The API key
// is only in the parent agent's .env file: the child's engine gets it, its
// tools do not, and no file of the workspace holds it.
func TestSubagentOverOpenAIServer(t *testing.T) {
	parentSrv, childSrv := llmtest.NewServer(t), llmtest.NewServer(t)
	parentSrv.ReplyToolCalls(tc("spawn_agent", `{"task":"check the environment","agent":"child","model":"child-model"}`))
	parentSrv.ReplyToolCalls(tc("wait", `{"agent_id":"p.sub1"}`))
	parentSrv.ReplyText("parent done")
	childSrv.ReplyToolCalls(tc("show_env", `{}`))
	childSrv.ReplyText("child done: ok")

	home := t.TempDir()
	context := "sources:\n  - type: journal\n    id: conversation_history\n"
	for name, body := range map[string]string{
		"agent.yaml":       "name: parent\nllm:\n  model: parent-model\n  base_url: " + parentSrv.URL + "\nsubagents:\n  enabled: true\n  agents: [child]\n",
		".env":             "DELTA_API_KEY=" + testKey + "\n",
		"system_prompt.md": "p\n", "context.yaml": context,
		"child/agent.yaml":       "name: child\nllm:\n  model: m0\n  base_url: " + childSrv.URL + "\ntools:\n  - name: show_env\n    exec: env\n",
		"child/system_prompt.md": "c\n", "child/context.yaml": context,
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	stdout, stderr, code := runDelta(t, nil, "run", "--agent", home, "-w", ws, "--run-id", "p", "-m", "delegate", "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "parent done" {
		t.Fatalf("run: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	reqs := childSrv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the child's endpoint saw %d requests, want 2", len(reqs))
	}
	if reqs[0].Model != "child-model" || reqs[0].Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("child request: model %q, Authorization %q; want child-model and the key", reqs[0].Model, reqs[0].Header.Get("Authorization"))
	}
	var envObs string
	for _, m := range reqs[1].Messages {
		if m.Role == llm.RoleTool {
			envObs = m.Content
		}
	}
	if !strings.Contains(envObs, "PATH=") || strings.Contains(envObs, testKey) || strings.Contains(envObs, "DELTA_API_KEY") {
		t.Errorf("the child's tool saw the environment %q: want PATH and no key", envObs)
	}
	var last string
	for _, m := range parentSrv.Requests()[2].Messages {
		if m.Role == llm.RoleTool {
			last = m.Content
		}
	}
	if !strings.Contains(last, "status: COMPLETED") || !strings.Contains(last, "child done: ok") {
		t.Errorf("the parent's wait observation = %q, want the child's result", last)
	}
	filepath.WalkDir(ws, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), testKey) {
				t.Errorf("%s holds the API key", path)
			}
		}
		return nil
	})
}
