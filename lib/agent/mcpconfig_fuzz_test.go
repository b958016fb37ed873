package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadMCPConfig: any --mcp-config file, JSON, YAML or TOML, yields
// servers each with a name and a command or a URL, or a *LoadError whose
// problems name the file; it never panics.
func FuzzReadMCPConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "npx", "args": ["-y", "s"], "env": {"K": "v"}}, "b": {"type": "http", "url": "http://x", "headers": {"A": "b"}}}}`,
		"[mcp_servers.a]\ncommand = \"x\"\nenv_vars = [\"K\"]\ntool_timeout_sec = 1.5\n[mcp_servers.b]\nurl = \"http://x\"\nbearer_token_env_var = \"T\"\n",
		"- name: a\n  command: x\n", `{"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}`, `{"mcpServers": []}`,
		`{"mcpServers": {"a": 3}}`, "mcp_servers: {a: {enabled_tools: [x], http_headers: 3}}", "[", "= x",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string, asTOML bool) {
		name := "c.json"
		if asTOML {
			name = "c.toml"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		servers, err := ReadMCPConfig(path)
		if err == nil {
			for _, s := range servers {
				if s.Name == "" || (s.Command == "") == (s.URL == "") {
					t.Fatalf("server %+v needs a name and a command or a url", s)
				}
			}
			return
		}
		var le *LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 {
			t.Fatalf("error %v is not a *LoadError with problems", err)
		}
	})
}

// FuzzParseSetting: any -c argument parses to a setting that LoadWith can
// apply, or is an error; neither panics.
func FuzzParseSetting(f *testing.F) {
	for _, s := range []string{"max_iterations=5", "llm.temperature=0.2", "llm.stop=[a, b]", "env=", "a.b.c=d", "=", "llm..x=1", "tools={x: [}"} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("name: a\nllm: {model: m}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "system_prompt.md"), []byte("p"), 0o644)
	os.WriteFile(filepath.Join(dir, "context.yaml"), []byte(DefaultContextYAML), 0o644)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSetting(text)
		if err != nil {
			return
		}
		if _, err := LoadWith(dir, []Setting{s}); err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("LoadWith(%q) error %v is not a *LoadError", text, err)
			}
		}
	})
}
