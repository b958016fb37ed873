package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The configs users have: Claude Code/Desktop and Cursor's JSON, Codex's
// TOML, and Delta's own list, each read into the same servers.
func TestReadMCPConfig(t *testing.T) {
	claude := `{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "files-server"], "env": {"ROOT": "/data"}},
  "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
}}`
	codex := `[mcp_servers.files]
command = "npx"
args = ["-y", "files-server"]
env = { ROOT = "/data" }

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "TOKEN"

[mcp_servers.off]
command = "never"
enabled = false
`
	delta := `- name: files
  command: npx
  args: [-y, files-server]
  env: {ROOT: /data}
- name: remote
  url: https://example.com/mcp
  headers: {Authorization: "Bearer ${TOKEN}"}
`
	want := []MCPServer{
		{Name: "files", Command: "npx", Args: []string{"-y", "files-server"}, Env: map[string]string{"ROOT": "/data"}},
		{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
	}
	for _, tc := range []struct{ name, file, body string }{
		{"claude json", "claude.json", claude},
		{"codex toml", "config.toml", codex},
		{"delta yaml list", "servers.yaml", delta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadMCPConfig(path)
			if err != nil {
				t.Fatalf("ReadMCPConfig(%s): %v", tc.file, err)
			}
			for i := range got {
				got[i].Source = ""
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ReadMCPConfig(%s) (-want +got):\n%s", tc.file, d)
			}
		})
	}
}

// Codex's tool filters and timeouts become Delta's tools, exclude and
// timeout_ms.
func TestReadMCPConfigCodexKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	body := "[mcp_servers.gh]\ncommand = \"gh-mcp\"\nenv_vars = [\"GH_TOKEN\"]\nenabled_tools = [\"a\"]\ndisabled_tools = [\"b\"]\ntool_timeout_sec = 2.5\nstartup_timeout_sec = 20\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMCPConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	got[0].Source = ""
	want := []MCPServer{{Name: "gh", Command: "gh-mcp", Env: map[string]string{"GH_TOKEN": "${GH_TOKEN}"}, Tools: []string{"a"}, Exclude: []string{"b"}, TimeoutMS: 2500}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadMCPConfig (-want +got):\n%s", d)
	}
}

func TestReadMCPConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, file, body, want string }{
		{"no servers", "c.json", `{"servers": {}}`, "no mcpServers or mcp_servers in the file"},
		{"bad toml", "c.toml", "[mcp_servers.x\n", "c.toml:2:1: invalid TOML"},
		{"typo in json", "c.json", "{\"mcpServers\": {\"x\": {\n  \"comand\": \"a\"}}}", `c.json:2:3: unknown key "comand"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if err := os.WriteFile(tc.file, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadMCPConfig(filepath.Join(dir, tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownKey) {
				t.Errorf("ReadMCPConfig() error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// agent.yaml's mcp_servers: may be written keyed by name, as Claude's
// mcpServers is.
func TestLoadMCPServersKeyedByName(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\nmcp_servers:\n  files:\n    type: stdio\n    command: npx\n    args: [-y, s]\n"})
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.MCPServers) != 1 || a.MCPServers[0].Name != "files" || a.MCPServers[0].Command != "npx" {
		t.Errorf("MCPServers = %+v, want files running npx", a.MCPServers)
	}
}
