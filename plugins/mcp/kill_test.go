package mcp_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
)

// TestKill9LeavesNoServer: a stdio MCP server, and what it started, never
// outlive delta-run, even when delta-run is killed with SIGKILL in the
// middle of a call.
func TestKill9LeavesNoServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	bin := clitest.BinDir(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "server.pid")
	// The server's child: a sleep no other process runs.
	marker := strconv.Itoa(900000 + os.Getpid())
	files := map[string]string{
		"agent/agent.yaml": `name: killme
llm: {provider: scripted, script: s.yaml}
mcp_servers:
  - name: ts
    command: /bin/sh
    args: [-c, "sleep ` + marker + ` & exec ` + testServer + `"]
    env: {` + mcptest.PidFileEnv + `: ` + pidFile + `}
`,
		"agent/s.yaml":           "turns:\n  - content: wait\n    tool_calls: [{name: ts__sleep, args: {ms: 600000}}]\n  - content: done\n",
		"agent/system_prompt.md": "p\n",
		"agent/context.yaml":     "sources: [{type: journal}]\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	run := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", filepath.Join(dir, "agent"), "-w", filepath.Join(dir, "ws"), "-m", "go", "-y")
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if !poll(func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	}) {
		run.Process.Kill()
		run.Wait()
		t.Fatalf("the server never started its call; delta-run said:\n%s", stderr.String())
	}
	if !alive(pid) || !poll(func() bool { return len(sleepers(marker)) == 1 }) {
		t.Fatalf("server %d is not running during its call, or its child is not (%v)", pid, sleepers(marker))
	}
	run.Process.Signal(syscall.SIGKILL)
	run.Wait()
	if !poll(func() bool { return !alive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("MCP server %d outlived delta-run killed with SIGKILL", pid)
	}
	if !poll(func() bool { return len(sleepers(marker)) == 0 }) {
		for _, p := range sleepers(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("the MCP server's child outlived delta-run killed with SIGKILL")
	}
}

// sleepers lists the live processes running "sleep MARKER".
func sleepers(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(cmdline) == "sleep\x00"+marker+"\x00" && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// poll waits for cond for up to 60 s (a bound against hanging on a loaded
// machine, not a speed assertion).
func poll(cond func() bool) bool {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
