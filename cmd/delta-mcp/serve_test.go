package main

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
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

// startServe starts delta mcp serve on stdio with the SDK's client
// talking to it over the process's pipes, so that the test holds the
// process itself (to kill it) and can wait for it.
func startServe(t *testing.T, agentDir, ws string) (*exec.Cmd, *sdk.ClientSession) {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-mcp"), "serve", "--agent", agentDir, "-w", ws)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	// The session's run directory is made at its first call, before the
	// call runs: once the answer is here, metadata.json says RUNNING.
	if _, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}}); err != nil {
		t.Fatalf("CallTool greet: %v", err)
	}
	return cmd, session
}

// sessionStatus is the status metadata.json of a serve session gives.
func sessionStatus(t *testing.T, ws, session string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, ".delta", session, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Status
}

// sessionOf is the run id of the serve session process pid recorded.
func sessionOf(t *testing.T, ws string, pid int) string {
	t.Helper()
	metas, _ := filepath.Glob(filepath.Join(ws, ".delta", "mcp-*", "metadata.json"))
	for _, p := range metas {
		data, _ := os.ReadFile(p)
		var m struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(data, &m) == nil && m.PID == pid {
			return filepath.Base(filepath.Dir(p))
		}
	}
	t.Fatalf("no serve session of process %d in %v", pid, metas)
	return ""
}

// deltaRun runs delta-run with args and returns its stdout and stderr,
// failing the test unless it exits with code.
func deltaRun(t *testing.T, code int, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-run"), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if got != code {
		t.Fatalf("delta-run %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, &stdout, &stderr)
	}
	return stdout.String(), stderr.String()
}

// TestServeKilled: a serve session killed with SIGKILL is, like a crashed
// run, INTERRUPTED for list-runs (which records it so) and removed by
// prune like any finished run; continue still refuses it; a live session
// of the same workspace is never touched.
func TestServeKilled(t *testing.T) {
	agentDir, ws := toolboxAgent(t), t.TempDir()
	killed, _ := startServe(t, agentDir, ws)
	live, liveSession := startServe(t, agentDir, ws)
	dead, alive := sessionOf(t, ws, killed.Process.Pid), sessionOf(t, ws, live.Process.Pid)

	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait() // reaped: its pid is gone
	if got := sessionStatus(t, ws, dead); got != "RUNNING" {
		t.Fatalf("killed session's status = %s before list-runs, want RUNNING (nothing left to record its end)", got)
	}

	// prune --dry-run says what it would do and changes nothing.
	out, _ := deltaRun(t, 0, "prune", "-w", ws, "--older-than", "0s", "--dry-run")
	if !strings.Contains(out, "would remove "+dead+" (INTERRUPTED") || strings.Contains(out, alive) {
		t.Errorf("prune --dry-run = %q, want the killed session (INTERRUPTED) only", out)
	}
	if got := sessionStatus(t, ws, dead); got != "RUNNING" {
		t.Errorf("killed session's status after prune --dry-run = %s, want it unchanged", got)
	}

	// continue refuses a session, dead or alive.
	_, errOut := deltaRun(t, 126, "continue", "-w", ws, "--run-id", dead, "-m", "more")
	if !strings.Contains(errOut, "delta mcp serve session") {
		t.Errorf("continue of the killed session: stderr %q, want the refusal", errOut)
	}

	out, errOut = deltaRun(t, 0, "list-runs", "-w", ws, "--format", "json")
	var listed []struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
		Stale  bool   `json:"stale"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("list-runs --format json: %v\n%s", err, out)
	}
	statuses := map[string]string{}
	for _, r := range listed {
		statuses[r.RunID] = r.Status
		if r.Stale {
			t.Errorf("list-runs: %s stale, want no stale session", r.RunID)
		}
	}
	if want := map[string]string{dead: "INTERRUPTED", alive: "RUNNING"}; !maps.Equal(statuses, want) {
		t.Errorf("list-runs statuses = %v, want %v", statuses, want)
	}
	if !strings.Contains(errOut, "[Janitor] Cleaned up orphaned delta mcp serve session "+dead) {
		t.Errorf("list-runs stderr = %q, want the janitor's note", errOut)
	}
	if got := sessionStatus(t, ws, dead); got != "INTERRUPTED" {
		t.Errorf("killed session's status after list-runs = %s, want INTERRUPTED recorded", got)
	}
	if out, _ := deltaRun(t, 0, "list-runs", "-w", ws, "--resumable", "--format", "raw"); out != "" {
		t.Errorf("list-runs --resumable = %q, want no serve session", out)
	}
	_, errOut = deltaRun(t, 126, "continue", "-w", ws, "--run-id", dead, "-m", "more")
	if !strings.Contains(errOut, "delta mcp serve session") {
		t.Errorf("continue of the cleaned-up session: stderr %q, want the refusal", errOut)
	}

	out, _ = deltaRun(t, 0, "prune", "-w", ws, "--older-than", "0s")
	if !strings.Contains(out, "removed "+dead+" (INTERRUPTED") || strings.Contains(out, alive) {
		t.Errorf("prune = %q, want the killed session removed, not the live one", out)
	}
	if _, err := os.Stat(filepath.Join(ws, ".delta", dead)); !os.IsNotExist(err) {
		t.Errorf("killed session after prune: %v, want it gone", err)
	}

	// The live session went on serving, untouched, and ends as usual.
	if got := sessionStatus(t, ws, alive); got != "RUNNING" {
		t.Errorf("live session's status = %s, want RUNNING", got)
	}
	if _, err := liveSession.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "y"}}); err != nil {
		t.Errorf("live session after list-runs and prune: %v", err)
	}
	liveSession.Close()
	if err := live.Wait(); err != nil {
		t.Errorf("live session: %v, want exit 0 at the end of its input", err)
	}
	if got := sessionStatus(t, ws, alive); got != "COMPLETED" {
		t.Errorf("live session's status at its end = %s, want COMPLETED", got)
	}
}
