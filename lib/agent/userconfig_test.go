package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeUserConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "delta", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUserConfigPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	if got := UserConfigPath(); got != "/x/cfg/delta/config.yaml" {
		t.Errorf("UserConfigPath() = %q with XDG_CONFIG_HOME", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := UserConfigPath(); got != "/home/u/.config/delta/config.yaml" {
		t.Errorf("UserConfigPath() = %q without XDG_CONFIG_HOME", got)
	}
}

// What agent.yaml leaves open comes from the user config; what it says,
// or the environment says, wins.
func TestUserConfigApplyTo(t *testing.T) {
	u, err := ReadUserConfig(writeUserConfig(t, "llm: {provider: anthropic, model: claude-x, base_url: http://u}\napprovals: deny\nenv: {A: b}\nmcp_servers:\n  shared: {command: npx}\n  mine: {command: user-version}\n"))
	if err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		name, agentYAML       string
		getenv                func(string) string
		provider, model, base string
	}{
		{"agent silent", "name: a\n", noEnv, "anthropic", "claude-x", "http://u"},
		{"agent names a model", "name: a\nllm: {model: gpt-4o}\n", noEnv, "openai", "gpt-4o", "http://u"},
		{"agent names its provider", "name: a\nllm: {provider: gemini}\n", noEnv, "gemini", "claude-x", "http://u"},
		{"environment", "name: a\n", func(k string) string { return map[string]string{"DELTA_MODEL": "m", "DELTA_BASE_URL": "http://e"}[k] }, "anthropic", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Load(writeAgent(t, map[string]string{"agent.yaml": tc.agentYAML + "mcp_servers:\n  - name: mine\n    command: agent-version\n"}))
			if err != nil {
				t.Fatal(err)
			}
			u.ApplyTo(a, tc.getenv)
			if a.LLM.Provider != tc.provider || a.LLM.Model != tc.model || a.LLM.BaseURL != tc.base {
				t.Errorf("llm = %s %q %q, want %s %q %q", a.LLM.Provider, a.LLM.Model, a.LLM.BaseURL, tc.provider, tc.model, tc.base)
			}
			var servers []string
			for _, s := range a.MCPServers {
				servers = append(servers, s.Name+"="+s.Command)
			}
			if d := cmp.Diff([]string{"shared=npx", "mine=agent-version"}, servers); d != "" {
				t.Errorf("mcp servers (-want +got):\n%s", d)
			}
		})
	}
	if u.Approvals != "deny" || u.Env["A"] != "b" {
		t.Errorf("approvals %q, env %v", u.Approvals, u.Env)
	}
}

func TestReadUserConfigErrors(t *testing.T) {
	if u, err := ReadUserConfig(filepath.Join(t.TempDir(), "none.yaml")); u != nil || err != nil {
		t.Errorf("ReadUserConfig(missing) = %v, %v; want nil, nil", u, err)
	}
	for _, tc := range []struct{ body, want string }{
		{"approvals: maybe\n", "config.yaml:1:12: approvals must be ask or deny"},
		{"modle: x\n", `unknown key "modle" in the user config`},
		{"llm: {provider: nope}\n", `unknown llm.provider "nope"`},
	} {
		_, err := ReadUserConfig(writeUserConfig(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadUserConfig(%q) error = %v, want %q", tc.body, err, tc.want)
		}
	}
}
