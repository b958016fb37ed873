package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadMCPServers(t *testing.T) {
	dir := writeAgent(t, map[string]string{
		"agent.yaml": `name: m
imports: [tools/shared.yaml]
mcp_servers:
  - name: files
    command: ./bin/server
    args: ["--root", "${AGENT_HOME}/data"]
    env: {API_KEY: "${FILES_KEY}", CONFIG: "${AGENT_HOME}/conf.json"}
    tools: [read]
    timeout_ms: 5000
  - name: remote
    url: https://example.com/mcp
    headers: {Authorization: "Bearer ${REMOTE_TOKEN}"}
    exclude: [drop]
`,
		"tools/shared.yaml": `mcp_servers:
  - name: files
    command: overridden
  - name: shared
    command: npx
    args: [-y, some-server]
`,
	})
	a, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	home := a.Home
	for i := range a.MCPServers {
		a.MCPServers[i].Source = ""
	}
	want := []MCPServer{
		{Name: "files", Command: home + "/bin/server", Args: []string{"--root", home + "/data"}, Env: map[string]string{"API_KEY": "${FILES_KEY}", "CONFIG": home + "/conf.json"}, Tools: []string{"read"}, TimeoutMS: 5000},
		{Name: "shared", Command: "npx", Args: []string{"-y", "some-server"}},
		{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${REMOTE_TOKEN}"}, Exclude: []string{"drop"}},
	}
	if d := cmp.Diff(want, a.MCPServers); d != "" {
		t.Errorf("MCPServers (-want +got):\n%s", d)
	}
}

func TestLoadMCPServerErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"no command or url", "mcp_servers:\n  - name: x\n", `agent.yaml:3:5: mcp server "x" needs a command or a url`},
		{"both", "mcp_servers:\n  - name: x\n    command: a\n    url: http://b\n", `mcp server "x" has both a command and a url`},
		{"double underscore", "mcp_servers:\n  - name: a__b\n    command: a\n", `mcp server name "a__b" must be letters`},
		{"no name", "mcp_servers:\n  - command: a\n", "agent.yaml:3:5: mcp_servers entry needs a name"},
		{"twice", "mcp_servers:\n  - name: x\n    command: a\n  - name: x\n    command: b\n", `mcp server "x" is listed twice`},
		{"bad url", "mcp_servers:\n  - name: x\n    url: ftp://b\n", "url must start with http:// or https://"},
		{"typo", "mcp_servers:\n  - name: x\n    comand: a\n", `unknown key "comand" in an mcp_servers entry (did you mean "command"?)`},
		{"env list", "mcp_servers:\n  - name: x\n    command: a\n    env: [A]\n", "agent.yaml:5:10: mcp server env must be a mapping"},
		{"keyed by name, SSE", "mcp_servers:\n  github:\n    type: sse\n    url: http://b\n", `agent.yaml:4:11: mcp server "github" uses the SSE transport`},
		{"keyed by name, typo", "mcp_servers:\n  github:\n    comand: npx\n", `agent.yaml:4:5: unknown key "comand" in an mcp_servers entry`},
		{"command as a list", "mcp_servers:\n  - name: x\n    command: [npx, -y, s]\n", "agent.yaml:4:14: mcp server command must be a string (the program), not a list"},
		{"headers on stdio", "mcp_servers:\n  - name: x\n    command: a\n    headers: {A: b}\n", `mcp server "x" has a command and headers`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\n" + tc.yaml})
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A negative timeout_ms is one problem, said once (not also "at least 1,
// not 0").
func TestLoadMCPServerNegativeTimeout(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\nmcp_servers:\n  - name: x\n    command: a\n    timeout_ms: -5\n"})
	_, err := Load(dir)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load() error = %v, want a LoadError", err)
	}
	if len(le.Problems) != 1 || !strings.Contains(le.Problems[0].String(), `agent.yaml:5:17: mcp server timeout_ms must be a non-negative integer, not "-5"`) {
		t.Errorf("problems = %q, want the one about -5", le.Problems)
	}
}

// A command given as a list is one problem with a hint that shows args:,
// not also "needs a command or a url".
func TestLoadMCPServerCommandList(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\nmcp_servers:\n  - name: x\n    command: [npx, -y, s]\n"})
	_, err := Load(dir)
	var le *LoadError
	if !errors.As(err, &le) || len(le.Problems) != 1 || !strings.Contains(le.Problems[0].Hint, "args: [-y, some-server]") {
		t.Errorf("Load() = %v, want one problem whose hint shows args:", err)
	}
}
