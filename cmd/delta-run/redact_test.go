package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestSecretsRedacted: a tool that finds secret values (in a file of the
// workspace, as one might in a config) and prints them, and a context file
// holding one, never put them into anything the run writes or sends: no
// file under .delta/, no request the model received, neither stdout nor
// stderr. [REDACTED:NAME] stands in their place.
func TestSecretsRedacted(t *testing.T) {
	const apiKey = "sk-canary-api-key-0123456789"
	const token = "canary-service-token-0123456789"
	// JSON escapes these characters: the check must decode to see it.
	const password = `canary"pass&word<0123456789>`
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(tc("read_config", `{}`))
	srv.ReplyToolCalls(tc("read_config", `{}`))
	srv.ReplyText("done")
	agentDir := writeAgent(t, "llm:\n  model: test-model\ntools:\n"+
		"  - name: read_config\n    shell: 'cat config.txt; echo \"stderr: $(cat config.txt)\" >&2'\n",
		map[string]string{"context.yaml": "sources:\n  - type: file\n    path: '${CWD}/notes.md'\n  - type: journal\n"})
	ws := t.TempDir()
	config := "api_key=" + apiKey + "\nservice_token=" + token + "\npassword=" + password + "\n"
	if err := os.WriteFile(filepath.Join(ws, "config.txt"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("the token is "+token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + apiKey, "MY_SERVICE_TOKEN=" + token, "DB_PASSWORD=" + password}
	stdout, stderr, code := runDelta(t, env, "run", "-v", "--agent", agentDir, "-w", ws, "-m", "read the config", "--run-id", "r", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	check := func(where, text string) {
		t.Helper()
		for _, canary := range []string{apiKey, token, password} {
			if strings.Contains(text, canary) || strings.Contains(unescapeJSON(text), canary) {
				t.Errorf("%s contains the secret %s", where, canary)
			}
		}
	}
	check("stdout", stdout)
	check("stderr", stderr)
	for i, r := range srv.Requests() {
		check("request "+string(rune('1'+i))+" to the model", string(r.Body))
	}
	sawRedacted := false
	err := filepath.WalkDir(filepath.Join(ws, ".delta"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		check(p, string(data))
		sawRedacted = sawRedacted || strings.Contains(string(data), "[REDACTED:MY_SERVICE_TOKEN]")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawRedacted {
		t.Error("no file under .delta shows [REDACTED:MY_SERVICE_TOKEN]")
	}
	last := srv.Requests()[len(srv.Requests())-1]
	var sawTool, sawContext bool
	for _, m := range last.Messages {
		sawTool = sawTool || (m.Role == llm.RoleTool && strings.Contains(m.Content, "service_token=[REDACTED:MY_SERVICE_TOKEN]"))
		sawContext = sawContext || strings.Contains(m.Content, "the token is [REDACTED:MY_SERVICE_TOKEN]")
	}
	if !sawTool || !sawContext {
		t.Errorf("the model's last request lacks the redacted tool output (%v) or context file (%v)", sawTool, sawContext)
	}
}

// TestFailureRedacted: a run that fails on a context file's generator
// quoting a secret keeps it out of the journal, metadata.json and the
// result.
func TestFailureRedacted(t *testing.T) {
	const token = "canary-failure-token-0123456789"
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: s.yaml\n",
		map[string]string{"s.yaml": "turns:\n  - content: done\n",
			"gen.sh":       "#!/bin/sh\necho \"cannot read: $(cat secret.txt)\" >&2\nexit 3\n",
			"context.yaml": "sources:\n  - type: computed_file\n    generator: {command: ['sh', '${AGENT_HOME}/gen.sh']}\n    output_path: '${CWD}/out.md'\n  - type: journal\n"})
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "secret.txt"), []byte(token), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runDelta(t, []string{"MY_SERVICE_TOKEN=" + token}, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "f", "--format", "json")
	if code == 0 {
		t.Fatalf("run succeeded, want a context failure\n%s", stderr)
	}
	for where, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(text, token) {
			t.Errorf("%s contains the secret:\n%s", where, text)
		}
	}
	for _, name := range []string{"journal.jsonl", "metadata.json"} {
		data, _ := os.ReadFile(filepath.Join(ws, ".delta", "f", name))
		if strings.Contains(string(data), token) {
			t.Errorf("%s contains the secret", name)
		}
	}
}

// unescapeJSON undoes JSON string escapes in text (the \u0026 of "&",
// the \" of a quote) so that a secret inside a JSON file is seen.
func unescapeJSON(text string) string {
	var s string
	if err := json.Unmarshal([]byte(`"`+strings.NewReplacer("\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(text)+`"`), &s); err == nil {
		return s
	}
	return strings.NewReplacer(`\u0026`, "&", `\u003c`, "<", `\u003e`, ">", `\"`, `"`).Replace(text)
}
