package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/plugins/mcp"
)

// TestStdioSandboxed: a stdio server started under a run's sandbox
// cannot write outside the workspace, and can inside it.
func TestStdioSandboxed(t *testing.T) {
	if s := sandbox.Probe(); !s.FS || !s.Net {
		t.Skipf("this kernel cannot sandbox (Landlock ABI %d): %v", s.ABI, s.Err)
	}
	ws, outside := t.TempDir(), t.TempDir()
	rules := &sandbox.Rules{Mode: sandbox.WorkspaceWrite, Write: []string{ws}}
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "ts", Command: testServer, Args: []string{"writer"}}},
		mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}, Dir: ws, Sandbox: rules})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	r := run(t)
	out := call(t, tb, r, "ts__write", `{"path":"`+filepath.Join(outside, "x")+`","text":"x"}`)
	if !out.IsError || !strings.Contains(out.Observation, "permission denied") {
		t.Errorf("write outside = %+v, want a permission denied error", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the server wrote outside the workspace")
	}
	if out := call(t, tb, r, "ts__write", `{"path":"`+filepath.Join(ws, "x")+`","text":"x"}`); out.IsError {
		t.Errorf("write inside = %+v, want written", out)
	}
}
