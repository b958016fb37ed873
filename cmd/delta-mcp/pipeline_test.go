package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// policyAgent writes an agent whose pre_tool_execution hook blocks a
// greeting of "blockme" and wants a human for deploy, with a
// post_tool_execution hook too and an approval rule denying wipe, and
// returns its directory.
func policyAgent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"agent.yaml": `name: policy
tools:
  - name: greet
    exec: "echo hello ${name}"
  - name: deploy
    exec: "touch deployed"
  - name: quiet
    exec: "true"
  - name: wipe
    exec: "touch wiped"
approval:
  - tool: wipe
    decision: deny
    reason: never over MCP
`,
		"hooks.yaml": `pre_tool_execution:
  command: ["${AGENT_HOME}/policy.sh"]
post_tool_execution:
  command: ["true"]
`,
		"policy.sh": `#!/bin/sh
p="$DELTA_HOOK_IO_PATH/input/payload.json"
if grep -q blockme "$p"; then
  printf '{"action": "block", "reason": "no blockme"}\n' > "$DELTA_HOOK_IO_PATH/output/control.json"
elif grep -q '"deploy"' "$p"; then
  printf '{"action": "ask", "reason": "production"}\n' > "$DELTA_HOOK_IO_PATH/output/control.json"
fi
exit 0
`,
		"system_prompt.md": "p\n",
		"context.yaml":     "sources: [{type: journal}]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serveSession starts delta mcp serve for agentDir in ws with a client of
// opts, and the secret QA_API_KEY in the server's environment.
func serveSession(t *testing.T, agentDir, ws string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-mcp"), "serve", "--agent", agentDir, "-w", ws)
	cmd.Env = append(os.Environ(), "QA_API_KEY=sk-serve-secret-987654321")
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	// The protocol version the TypeScript SDK and the inspector speak:
	// elicitation inside a call (the newest version, 2026-07-28, replaces
	// it by multi-round-trip input requests, which serve does not offer).
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

func callText(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return text(t, res), res.IsError
}

// journalHas reports how many events of the single serve session in ws
// hold every one of parts.
func journalHas(t *testing.T, ws string, parts ...string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(ws, ".delta", "mcp-*", "journal.jsonl"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
	lines:
		for _, line := range strings.Split(string(data), "\n") {
			for _, p := range parts {
				if !strings.Contains(line, p) {
					continue lines
				}
			}
			n++
		}
	}
	return n
}

// TestServeTakesEveryStep: a call over MCP takes the steps a call of a
// run takes (issue 27, hole 2: serve skipped the hooks): the agent's
// pre_tool_execution hook blocks one, its approval rule denies one, its
// post_tool_execution hook runs, a secret is redacted; a call the hook wants a human for is denied when
// the client cannot be asked and asked through elicitation when it can.
func TestServeTakesEveryStep(t *testing.T) {
	agentDir := policyAgent(t)
	ws := t.TempDir()
	s := serveSession(t, agentDir, ws, nil)
	if got, isErr := callText(t, s, "greet", map[string]any{"name": "blockme"}); !isErr || !strings.Contains(got, "blocked by the pre_tool_execution hook: no blockme") {
		t.Errorf("greet blockme = %q (error %v), want the hook's block", got, isErr)
	}
	if got, _ := callText(t, s, "greet", map[string]any{"name": "sk-serve-secret-987654321"}); got != "hello [REDACTED:QA_API_KEY]\n" {
		t.Errorf("greet SECRET = %q, want the secret redacted", got)
	}
	if got, isErr := callText(t, s, "quiet", nil); got != "" || isErr {
		t.Errorf("quiet = %q (error %v), want empty text", got, isErr)
	}
	if got, isErr := callText(t, s, "wipe", nil); !isErr || !strings.Contains(got, "denied by the approval policy (agent.yaml approval rule at line 12): never over MCP") {
		t.Errorf("wipe = %q (error %v), want the rule's denial", got, isErr)
	}
	if _, err := os.Stat(filepath.Join(ws, "wiped")); err == nil {
		t.Errorf("wipe ran though a rule denies it")
	}
	got, isErr := callText(t, s, "deploy", nil)
	if !isErr || !strings.Contains(got, "production") || !strings.Contains(got, "does not support elicitation") {
		t.Errorf("deploy without elicitation = %q (error %v), want a denial saying the client cannot be asked", got, isErr)
	}
	if _, err := os.Stat(filepath.Join(ws, "deployed")); err == nil {
		t.Errorf("deploy ran though nobody approved it")
	}
	s.Close()
	if n := journalHas(t, ws, `"hook_name":"pre_tool_execution"`); n != 5 {
		t.Errorf("%d pre_tool_execution HOOK_EXECUTION events, want 5 (one per call)", n)
	}
	if n := journalHas(t, ws, `"hook_name":"post_tool_execution"`); n != 5 {
		t.Errorf("%d post_tool_execution HOOK_EXECUTION events, want 5 (one per call)", n)
	}
	// The client sent the secret (ACTION_REQUEST keeps what was asked);
	// no result gives it back.
	if n := journalHas(t, ws, `"type":"ACTION_RESULT"`, "sk-serve-secret"); n != 0 {
		t.Errorf("%d ACTION_RESULT events hold the secret", n)
	}

	// A client that can elicit is asked, and its answer decides.
	asked := 0
	ws2 := t.TempDir()
	s2 := serveSession(t, agentDir, ws2, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked++
		if !strings.Contains(req.Params.Message, "deploy") || !strings.Contains(req.Params.Message, "production") {
			t.Errorf("elicitation message %q, want the call and the reason", req.Params.Message)
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	if got, isErr := callText(t, s2, "deploy", nil); isErr || asked != 1 {
		t.Errorf("deploy with elicitation = %q (error %v), asked %d times; want it approved and run", got, isErr, asked)
	}
	if _, err := os.Stat(filepath.Join(ws2, "deployed")); err != nil {
		t.Errorf("approved deploy did not run: %v", err)
	}
	s2.Close()
	if n := journalHas(t, ws2, `"type":"HUMAN_INPUT_RECEIVED"`, `"decision":"approved"`); n != 1 {
		t.Errorf("%d approvals journaled, want 1", n)
	}
}

// TestServeBadLine: a line that is not JSON gets a JSON-RPC parse error
// and the server reads on; it announces Delta's version.
func TestServeBadLine(t *testing.T) {
	bin := filepath.Join(clitest.BinDir(t), "delta-mcp")
	cmd := exec.Command(bin, "serve", "--agent", policyAgent(t), "-w", t.TempDir())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(in, "this is not json\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	r := bufio.NewReader(out)
	var replies []map[string]any
	for range 2 {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read a reply: %v (the server stopped?)", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("reply %q is not JSON: %v", line, err)
		}
		replies = append(replies, m)
	}
	if e, _ := replies[0]["error"].(map[string]any); e == nil || e["code"] != float64(-32700) {
		t.Errorf("reply to a bad line = %v, want error code -32700", replies[0])
	}
	version, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	res, _ := replies[1]["result"].(map[string]any)
	info, _ := res["serverInfo"].(map[string]any)
	if want := strings.TrimSpace(strings.TrimPrefix(string(version), "delta-mcp ")); info == nil || info["version"] != want {
		t.Errorf("serverInfo = %v, want version %q", info, want)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("delta mcp serve at the end of its input: %v, want exit 0", err)
	}
}
