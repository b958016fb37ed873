package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/plugins/mcp"
)

// BenchmarkStdioCall is one MCP tool call through the toolbox to the
// stdio test server, its io/tool_executions record included: Delta's cost
// per call on top of the server's own work.
func BenchmarkStdioCall(b *testing.B) {
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "ts", Command: testServer}}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		b.Fatal(err)
	}
	defer tb.Close()
	ws := b.TempDir()
	dir := filepath.Join(ws, ".delta", "r1")
	os.MkdirAll(dir, 0o755)
	r := engine.RunInfo{RunID: "r1", RunDir: dir, WorkDir: ws}
	args := json.RawMessage(`{"text":"hello"}`)
	for b.Loop() {
		out, err := tb.Call(context.Background(), r, "c1", "ts__echo", args)
		if err != nil || out.Observation != "hello" {
			b.Fatalf("Call = %+v, %v", out, err)
		}
	}
}

// BenchmarkStart starts the stdio test server and lists its tools, then
// stops it: what an MCP server adds to a run's start and end.
func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "ts", Command: testServer}}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			b.Fatal(err)
		}
		tb.Close()
	}
}
