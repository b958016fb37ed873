package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/plugins/mcp"
	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
)

// cleanup removes what the tests built.
func cleanup() { clitest.Cleanup() }

func stdio(t *testing.T, cfg agent.MCPServer, environ []string) *mcp.Toolbox {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "ts"
	}
	cfg.Command = testServer
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{cfg}, mcp.Options{Environ: environ, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// TestStdioEnvironment: a stdio server sees the core variables and those
// its entry names, never the engine's secrets.
func TestStdioEnvironment(t *testing.T) {
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/x", "OPENAI_API_KEY=sk-engine", "FILES_KEY=k-files", "UNRELATED=1"}
	tb := stdio(t, agent.MCPServer{Env: map[string]string{"GIVEN": "${FILES_KEY}", "LITERAL": "a$$b"}}, environ)
	r := run(t)
	for name, want := range map[string]string{"HOME": "/home/x", "OPENAI_API_KEY": "<unset>", "FILES_KEY": "<unset>", "UNRELATED": "<unset>", "GIVEN": "k-files", "LITERAL": "a$b"} {
		if out := call(t, tb, r, "ts__env", `{"name":"`+name+`"}`); out.Observation != want {
			t.Errorf("server sees %s=%q, want %q", name, out.Observation, want)
		}
	}
}

// TestStdioTimeout: a call past the entry's timeout_ms is an error
// observation, and the server still answers the next call.
func TestStdioTimeout(t *testing.T) {
	tb := stdio(t, agent.MCPServer{TimeoutMS: 300}, []string{"PATH=" + os.Getenv("PATH")})
	r := run(t)
	out := call(t, tb, r, "ts__sleep", `{"ms":60000}`)
	if !out.IsError || !strings.Contains(out.Observation, "did not answer within 300 ms") {
		t.Errorf("sleep past the timeout = %+v, want a timeout error", out)
	}
	if out := call(t, tb, r, "ts__echo", `{"text":"still here"}`); out.Observation != "still here" {
		t.Errorf("echo after a timeout = %+v", out)
	}
}

// TestStdioTruncation: a long result is cut as a command tool's output is
// (agent output: limits), the whole of it kept beside the record.
func TestStdioTruncation(t *testing.T) {
	tb := stdio(t, agent.MCPServer{}, []string{"PATH=" + os.Getenv("PATH")})
	r := run(t)
	out := call(t, tb, r, "ts__big", `{"lines":1000}`)
	// 1000 lines, each ending in a newline, as a command tool counts them.
	if !strings.Contains(out.Observation, "[WARNING: Tool output was truncated") || strings.Contains(out.Observation, "line 500\n") ||
		!strings.Contains(out.Observation, "of 1000 lines,") {
		t.Errorf("big output not truncated: %d chars", len(out.Observation))
	}
	full, err := filepath.Glob(filepath.Join(r.RunDir, "io", "tool_executions", "*", "output.txt"))
	if err != nil || len(full) != 1 {
		t.Fatalf("output.txt = %v, %v", full, err)
	}
	data, _ := os.ReadFile(full[0])
	if !strings.Contains(string(data), "line 500\nline 501\n") || !strings.Contains(out.Observation, ".delta/r1/io/tool_executions/") {
		t.Errorf("the whole output is not kept, or the marker does not say where")
	}
}

// TestStdioCrashMidRun: a server that dies during a call (SIGKILL) makes
// that call and every later one an error observation saying the server is
// gone and how it ended.
func TestStdioCrashMidRun(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	tb := stdio(t, agent.MCPServer{Env: map[string]string{mcptest.PidFileEnv: pidFile}}, []string{"PATH=" + os.Getenv("PATH")})
	r := run(t)
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		var data []byte
		if poll(func() bool { data, _ = os.ReadFile(pidFile); return len(data) > 0 }) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	out := call(t, tb, r, "ts__sleep", `{"ms":600000}`)
	<-killed
	for i, out := range []engine.ToolOutcome{out, call(t, tb, r, "ts__echo", `{"text":"hi"}`)} {
		if !out.IsError || !strings.Contains(out.Observation, `mcp server "ts" is no longer reachable`) || !strings.Contains(out.Observation, "the server exited: killed by SIGKILL") {
			t.Errorf("call %d after the server was killed = %+v, want an error saying it exited", i, out)
		}
	}
	tb.Close()
}

// TestStdioTooBig: a result over the SDK's 16 MiB message limit is an
// error observation that says so and what to do.
func TestStdioTooBig(t *testing.T) {
	tb := stdio(t, agent.MCPServer{}, []string{"PATH=" + os.Getenv("PATH")})
	out := call(t, tb, run(t), "ts__big", `{"lines":2000000}`)
	if !out.IsError || !strings.Contains(out.Observation, "error: the result of ts__big was larger than 16 MiB, the most Delta reads in one MCP message") ||
		!strings.Contains(out.Observation, "Ask for less at a time") {
		t.Errorf("a 23 MiB result = %+v", out)
	}
}

// TestStdioStartFailure: a server that exits at once is ErrStart with
// what it said on stderr; nothing is left running.
func TestStdioStartFailure(t *testing.T) {
	_, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "bad", Command: testServer, Args: []string{"crash"}, Source: "agent.yaml:4:5"}},
		mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if !errors.Is(err, mcp.ErrStart) || !strings.Contains(err.Error(), "cannot open the database") || !strings.Contains(err.Error(), `agent.yaml:4:5: mcp server "bad"`) ||
		!strings.Contains(err.Error(), "the server exited: exit status 3") {
		t.Errorf("Start of a crashing server = %v", err)
	}
	// A server that prints a banner on stdout is told where its logs go.
	_, err = mcp.Start(context.Background(), []agent.MCPServer{{Name: "chatty", Command: "/bin/sh", Args: []string{"-c", "echo Server starting; exec " + testServer}}},
		mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if !errors.Is(err, mcp.ErrStart) || !strings.Contains(err.Error(), "must write only MCP messages on stdout (its logs go to stderr)") {
		t.Errorf("Start of a server writing a banner on stdout = %v", err)
	}
	_, err = mcp.Start(context.Background(), []agent.MCPServer{{Name: "missing", Command: "no-such-mcp-server-xyz"}}, mcp.Options{Environ: []string{"PATH=/nonexistent"}})
	if !errors.Is(err, mcp.ErrStart) || !strings.Contains(err.Error(), "no-such-mcp-server-xyz") {
		t.Errorf("Start of a missing program = %v", err)
	}
}

// TestStdioClose: Close stops the server process.
func TestStdioClose(t *testing.T) {
	cfg := agent.MCPServer{Name: "ts", Command: testServer}
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{cfg, {Name: "two", Command: testServer}}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	pids := tb.Pids()
	if len(pids) != 2 || !tb.Has("two__echo") {
		t.Fatalf("Pids() = %v, tools %v", pids, tb.Specs())
	}
	tb.Close()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("server %d still runs after Close", pid)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's stderr copier and the
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStdioVerboseStderr: with Verbose, a server's stderr is shown line by
// line with its name, a last line without a newline included.
func TestStdioVerboseStderr(t *testing.T) {
	var shown syncBuffer
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "ts", Command: "/bin/sh", Args: []string{"-c", "echo starting >&2; printf 'no newline' >&2; exec " + testServer}}},
		mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}, Stderr: &shown, Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	tb.Close()
	if got := shown.String(); got != "[mcp ts] starting\n[mcp ts] no newline\n" {
		t.Errorf("stderr shown = %q", got)
	}
}
