package mcp_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/mcp"
)

// silent is an MCP server entry that starts and never answers.
func silent(timeoutMS int) agent.MCPServer {
	return agent.MCPServer{Name: "mute", Command: "sleep", Args: []string{"300"}, TimeoutMS: timeoutMS, Source: "agent.yaml:3"}
}

// TestStartTimeout: a server that never answers fails the start once its
// timeout_ms is over, with an error naming it (it held every run for the
// whole start limit, silently).
func TestStartTimeout(t *testing.T) {
	_, err := mcp.Start(context.Background(), []agent.MCPServer{silent(300)}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `mcp server "mute"`) || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("Start(a silent server, timeout_ms 300) = %v, want an error naming it and the limit", err)
	}
	var ce *cli.Error
	if !errors.As(mcp.StartFailed(err), &ce) || ce.Code != runs.ExitConfig {
		t.Errorf("StartFailed(%v) = %v, want exit %d", err, mcp.StartFailed(err), runs.ExitConfig)
	}
}

// TestStartInterrupted: an interrupt while a server starts is an
// interrupt (exit 130), not a configuration error (126).
func TestStartInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := mcp.Start(ctx, []agent.MCPServer{silent(0)}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}, Dir: t.TempDir()})
	var ce *cli.Error
	if err == nil || !errors.As(mcp.StartFailed(err), &ce) || ce.Code != runs.ExitInterrupted {
		t.Errorf("Start(cancelled) = %v; StartFailed = %v, want exit %d", err, mcp.StartFailed(err), runs.ExitInterrupted)
	}
}
