package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
)

// TestInteractiveSensitiveAnswerOnTerminal: with -i on a real terminal a
// sensitive ask_human reads the answer without echoing it, and the run
// goes on in the same process.
func TestInteractiveSensitiveAnswerOnTerminal(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: ask_human\n        args: {prompt: 'Password please', sensitive: true}\n  - content: thanks\n"})
	ws := t.TempDir()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	defer ptmx.Close()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "-i", "--run-id", "tty", "--format", "raw")
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen := &clitest.Buffer{}
	go io.Copy(screen, ptmx)
	waitFor(t, "the prompt", func() bool { return strings.Contains(screen.String(), "Password please\r\n> ") })
	if _, err := ptmx.Write([]byte("s3cret\r")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	if strings.TrimSpace(stdout.String()) != "thanks" {
		t.Errorf("stdout = %q", stdout.String())
	}
	if strings.Contains(screen.String(), "s3cret") {
		t.Errorf("the sensitive answer was echoed:\n%s", screen.String())
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "tty", "journal.jsonl"))
	got := ofType(evs, journal.HumanInputReceived)
	if len(got) != 1 || got[0].Response != "s3cret" {
		t.Errorf("HUMAN_INPUT_RECEIVED = %+v", got)
	}
}
