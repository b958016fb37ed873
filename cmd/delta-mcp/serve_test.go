package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolboxAgent writes an agent with two command tools and an approval rule
// denying one of them, and returns its directory.
func toolboxAgent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"agent.yaml": `name: toolbox
tools:
  - name: greet
    description: Greet someone.
    exec: "echo hello ${name}"
  - name: rm_all
    description: Dangerous.
    exec: "echo removing"
  - name: slow
    description: Sleep past its timeout.
    shell: "sleep 30"
    timeout_ms: 300
approval:
  - tool: rm_all
    decision: deny
    reason: never over MCP
  - tool: greet
    jq: '.name == "root"'
    decision: deny
    reason: not root
`,
		"system_prompt.md": "p\n",
		"context.yaml":     "sources: [{type: journal}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// exercise lists and calls the served tools through session.
func exercise(t *testing.T, session *sdk.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Name == "greet" {
			schema, _ := json.Marshal(tool.InputSchema)
			if tool.Description != "Greet someone." || !strings.Contains(string(schema), `"name"`) {
				t.Errorf("greet = %q %s, want the tool's description and schema", tool.Description, schema)
			}
		}
	}
	if got := strings.Join(names, " "); got != "greet rm_all slow" {
		t.Errorf("tools = %q, want greet rm_all slow (no ask_human)", got)
	}
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "a b; rm -rf /"}})
	if err != nil {
		t.Fatalf("CallTool greet: %v", err)
	}
	if got := text(t, res); got != "hello a b; rm -rf /\n" || res.IsError {
		t.Errorf("greet = %q (error %v), want the argument passed as one word, no shell", got, res.IsError)
	}
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "root"}})
	if err != nil {
		t.Fatalf("CallTool greet root: %v", err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "not root") {
		t.Errorf("greet root = %q (error %v), want the jq rule's refusal", got, res.IsError)
	}
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "rm_all", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool rm_all: %v", err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "never over MCP") || strings.Contains(got, "removing") {
		t.Errorf("rm_all = %q (error %v), want the approval rule's refusal", got, res.IsError)
	}
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool slow: %v", err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "timed out") {
		t.Errorf("slow = %q (error %v), want a timeout", got, res.IsError)
	}
}

// checkRecorded asserts the workspace holds one finished serve session
// with the calls journaled.
func checkRecorded(t *testing.T, ws string) {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(ws, ".delta", "mcp-*", "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("serve sessions = %v, want one", journals)
	}
	data, err := os.ReadFile(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	j := string(data)
	for _, want := range []string{`"type":"ACTION_REQUEST"`, `"tool_name":"greet"`, `hello a b; rm -rf /`, `"type":"ENGINE_END"`, `"status":"COMPLETED"`} {
		if !strings.Contains(j, want) {
			t.Errorf("journal lacks %s:\n%s", want, j)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(filepath.Dir(journals[0]), "io", "tool_executions", "*greet*.json"))
	if len(recs) != 1 {
		t.Errorf("greet records = %v, want one", recs)
	}
	meta, _ := os.ReadFile(filepath.Join(filepath.Dir(journals[0]), "metadata.json"))
	if !strings.Contains(string(meta), `"status": "COMPLETED"`) {
		t.Errorf("metadata.json = %s, want COMPLETED", meta)
	}
}

// TestServeStdio: the SDK's client starts delta mcp serve as MCP clients
// do and calls the agent's tools over stdio.
func TestServeStdio(t *testing.T) {
	bin := filepath.Join(clitest.BinDir(t), "delta-mcp")
	ws := t.TempDir()
	cmd := exec.Command(bin, "serve", "--agent", toolboxAgent(t), "-w", ws)
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	exercise(t, session)
	if err := session.Close(); err != nil {
		t.Errorf("close: %v (delta mcp serve should exit 0 at the end of its input)", err)
	}
	checkRecorded(t, ws)
}

// TestServeHTTP: the same over streamable HTTP on a loopback port; SIGTERM
// stops the server cleanly.
func TestServeHTTP(t *testing.T) {
	bin := filepath.Join(clitest.BinDir(t), "delta-mcp")
	ws := t.TempDir()
	cmd := exec.Command(bin, "serve", "--agent", toolboxAgent(t), "-w", ws, "--http", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q, %v; want the server's URL", url, err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: strings.TrimSpace(url)}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	exercise(t, session)
	session.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("delta mcp serve after SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("delta mcp serve did not stop on SIGTERM")
	}
	checkRecorded(t, ws)
}

// TestServeRefusesRemote: --http on an address other hosts reach needs
// --allow-remote.
func TestServeRefusesRemote(t *testing.T) {
	bin := filepath.Join(clitest.BinDir(t), "delta-mcp")
	cmd := exec.Command(bin, "serve", "--agent", toolboxAgent(t), "--http", "0.0.0.0:0")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not a loopback address") {
		t.Errorf("serve --http 0.0.0.0:0 = %v\n%s\nwant exit 2 and why", err, out)
	}
}
