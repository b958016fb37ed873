package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/deltakit/delta/lib/clitest"
)

// TestRunningToolTailOnTerminal: on a terminal, a running tool's last
// line is shown under the waiting indicator while it runs (the tool waits
// for a marker this test writes once it has seen the line), and erased
// when its result comes.
func TestRunningToolTailOnTerminal(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: slow\n    exec: \"${AGENT_HOME}/slow.sh\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: slow\n  - content: done\n",
			"slow.sh": "#!/bin/sh\necho tail line one\ni=0\nwhile [ ! -f go ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\necho finished\n"})
	if err := os.Chmod(filepath.Join(agentDir, "slow.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	defer ptmx.Close()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "tail", "--format", "raw")
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen := &clitest.Buffer{}
	go io.Copy(screen, ptmx)
	waitFor(t, "the tool's line under the indicator", func() bool {
		s := screen.String()
		i := strings.Index(s, "│ tail line one")
		return i >= 0 && strings.Contains(s[i:], "running slow")
	})
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	if strings.TrimSpace(stdout.String()) != "done" {
		t.Errorf("stdout = %q", stdout.String())
	}
	// The tail was erased (cursor up, clear) before the result was shown.
	s := screen.String()
	if i, j := strings.LastIndex(s, "│ tail line one"), strings.Index(s, "← slow"); i < 0 || j < i || !strings.Contains(s[i:j], "\x1b[A\x1b[K") {
		t.Errorf("the tail was not erased before the result:\n%q", s)
	}
}
