package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/plugins/mcp"
	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer is the stdio test server (testdata/testserver), built once.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-testserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testServer = filepath.Join(dir, "testserver")
	if out, err := exec.Command("go", "build", "-o", testServer, "./testdata/testserver").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build testserver: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	cleanup()
	os.Exit(code)
}

// run is a RunInfo whose records go to a temp run directory.
func run(t *testing.T) engine.RunInfo {
	t.Helper()
	ws := t.TempDir()
	dir := filepath.Join(ws, ".delta", "r1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return engine.RunInfo{RunID: "r1", RunDir: dir, WorkDir: ws}
}

// inMemory starts a toolbox of one server "t" reached through the SDK's
// in-memory transport.
func inMemory(t *testing.T, cfg agent.MCPServer) (*mcp.Toolbox, error) {
	t.Helper()
	return inMemoryWith(t, cfg, nil)
}

// inMemoryWith is inMemory with the engine's environment environ.
func inMemoryWith(t *testing.T, cfg agent.MCPServer, environ []string) (*mcp.Toolbox, error) {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcptest.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cfg.Name = "t"
	return mcp.Start(context.Background(), []agent.MCPServer{cfg}, mcp.WithTransport(mcp.Options{Environ: environ}, "t", ct))
}

func call(t *testing.T, tb engine.Toolbox, r engine.RunInfo, name, args string) engine.ToolOutcome {
	t.Helper()
	out, err := tb.Call(context.Background(), r, "c1", name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", name, err)
	}
	return out
}

func TestInMemoryTools(t *testing.T) {
	tb, err := inMemory(t, agent.MCPServer{Exclude: []string{"env"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	var names []string
	for _, s := range tb.Specs() {
		names = append(names, s.Name)
		if s.Name == "t__echo" && (s.Description != "Echo the text back." || !strings.Contains(string(s.Parameters), `"text"`)) {
			t.Errorf("t__echo spec = %q %s, want the server's description and schema", s.Description, s.Parameters)
		}
	}
	if got, want := strings.Join(names, " "), "t__add t__big t__echo t__fail t__note_read t__sleep"; got != want {
		t.Errorf("tools = %q, want %q (env excluded)", got, want)
	}
	r := run(t)
	if out := call(t, tb, r, "t__echo", `{"text":"hello"}`); out.Observation != "hello" || out.IsError {
		t.Errorf("echo = %+v, want hello", out)
	}
	if out := call(t, tb, r, "t__add", `{"a":2,"b":3}`); out.Observation != `{"sum":5}` {
		t.Errorf("add = %q, want {\"sum\":5}", out.Observation)
	}
	out := call(t, tb, r, "t__fail", `{"message":"no such row"}`)
	if !out.IsError || out.ExitCode != 1 || out.Observation != "no such row" {
		t.Errorf("fail = %+v, want an error observation", out)
	}
	var rec map[string]any
	data, err := os.ReadFile(filepath.Join(r.RunDir, out.RecordPath))
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec["mcp_server"] != "t" || rec["mcp_tool"] != "fail" || rec["is_error"] != true || rec["result"] == nil {
		t.Errorf("record = %s, want server, tool, is_error and the whole result", data)
	}
	if out := call(t, tb, r, "t__note_read", `{}`); out.Observation != "the note" {
		t.Errorf("note.read through its model name t__note_read = %+v", out)
	}
	if out := call(t, tb, r, "t__echo", `{"text":1}`); !out.IsError {
		t.Errorf("echo with a number = %+v, want the server's validation error", out)
	}
}

func TestAllowList(t *testing.T) {
	tb, err := inMemory(t, agent.MCPServer{Tools: []string{"echo", "add"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if len(tb.Specs()) != 2 || !tb.Has("t__add") || tb.Has("t__fail") {
		t.Errorf("specs = %v, want echo and add only", tb.Specs())
	}
	_, err = inMemory(t, agent.MCPServer{Tools: []string{"echo", "nope"}, Source: "agent.yaml:3:5"})
	if !errors.Is(err, mcp.ErrStart) || !strings.Contains(err.Error(), `agent.yaml:3:5: mcp server "t"`) || !strings.Contains(err.Error(), "it has no tool nope (it has: add, big, echo, env, fail, note.read, sleep)") {
		t.Errorf("Start with a missing tool = %v, want ErrStart naming it and the tools there are", err)
	}
}

// TestExcludeUnknown: an exclude entry naming no tool of the server is a
// warning (it excludes nothing), not an error.
func TestExcludeUnknown(t *testing.T) {
	tb, err := inMemory(t, agent.MCPServer{Exclude: []string{"echo", "ecko"}, Source: "agent.yaml:3:5"})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	w := tb.Warnings()
	if tb.Has("t__echo") || !tb.Has("t__add") || len(w) != 1 ||
		w[0] != `[WARNING] agent.yaml:3:5: mcp server "t" has no tool "ecko" to exclude (it has: add, big, echo, env, fail, note.read, sleep)` {
		t.Errorf("warnings = %q, specs %v", w, tb.Specs())
	}
}

func TestShadow(t *testing.T) {
	tb, err := inMemory(t, agent.MCPServer{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if w := tb.Shadow(fakeLocal{"other": true}); len(w) != 0 {
		t.Errorf("Shadow with no clash = %v", w)
	}
	w := tb.Shadow(fakeLocal{"t__echo": true})
	if len(w) != 1 || !strings.Contains(w[0], `tool "echo" of mcp server "t" is hidden`) || tb.Has("t__echo") {
		t.Errorf("Shadow = %v, Has(t__echo) %v; want one warning and the tool gone", w, tb.Has("t__echo"))
	}
}

type fakeLocal map[string]bool

func (f fakeLocal) Has(n string) bool { return f[n] }

// TestNameCollision: two tools of a server whose model-visible names are
// the same (a dot becomes '_') give one tool, the first, and a warning.
func TestNameCollision(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "dup", Version: "1"}, nil)
	for _, name := range []string{"note.read", "note_read"} {
		sdk.AddTool(s, &sdk.Tool{Name: name}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil, nil
		})
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "d", Source: "agent.yaml:3:5"}}, mcp.WithTransport(mcp.Options{}, "d", ct))
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	w := tb.Warnings()
	if len(tb.Specs()) != 1 || len(w) != 1 || !strings.Contains(w[0], `mcp server "d" has tools "note.read" and "note_read", both d__note_read to the model: only "note.read" is offered`) {
		t.Errorf("specs %v, warnings %q", tb.Specs(), w)
	}
	if out := call(t, tb, run(t), "d__note_read", `{}`); out.Observation != "note.read" {
		t.Errorf("d__note_read = %+v, want the first tool", out)
	}
}

// TestUnsetVariable: an env or header value naming a variable that is not
// set is a warning (the server would get an empty value).
func TestUnsetVariable(t *testing.T) {
	tb, err := inMemoryWith(t, agent.MCPServer{Source: "agent.yaml:3:5", Env: map[string]string{"TOKEN": "${GITHUB_TOKEN}", "PRICE": "$$5", "SET": "$HOME"}},
		[]string{"HOME=/home/x"})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	w := tb.Warnings()
	if len(w) != 1 || w[0] != `[WARNING] agent.yaml:3:5: mcp server "t": env TOKEN uses $GITHUB_TOKEN, which is not set: the server gets an empty value` {
		t.Errorf("warnings = %q", w)
	}
}
