package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

const streamedAnswer = "Streaming answers\narrive in pieces."

// TestStreamJSONDeltas: with --format stream-json the model is asked to
// stream, its text comes as delta lines before the THOUGHT event (which
// holds all of it), and the journal is what it is without streaming.
func TestStreamJSONDeltas(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(llm.Response{Content: streamedAnswer, Usage: llm.Usage{InputTokens: 5, OutputTokens: 9}})
	agentDir := writeAgent(t, "llm:\n  model: test-model\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	stdout, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "sd", "--format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var deltas strings.Builder
	sawThought := false
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var l streamLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch {
		case l.Type == "delta":
			if sawThought || l.Iteration != 1 {
				t.Errorf("delta line %q (iteration %d) after the THOUGHT", l.Text, l.Iteration)
			}
			deltas.WriteString(l.Text)
		case l.Event != nil && l.Event.Type == journal.Thought:
			sawThought = true
			if l.Event.Content != streamedAnswer {
				t.Errorf("THOUGHT content %q", l.Event.Content)
			}
		}
	}
	if deltas.String() != streamedAnswer || !sawThought {
		t.Errorf("deltas add up to %q (THOUGHT seen: %v)", deltas.String(), sawThought)
	}
	if srv.Requests()[0].Params["stream"] != true {
		t.Error("the model was not asked to stream")
	}
	thoughts := ofType(readEvents(t, filepath.Join(ws, ".delta", "sd", "journal.jsonl")), journal.Thought)
	if len(thoughts) != 1 || thoughts[0].Content != streamedAnswer || thoughts[0].Usage == nil || thoughts[0].Usage.OutputTokens != 9 {
		t.Errorf("THOUGHT = %+v", thoughts)
	}
}

// TestStreamingOnTerminal: on a terminal the answer is shown as it
// streams, once; in a pipe the model is not asked to stream.
func TestStreamingOnTerminal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(llm.Response{Content: streamedAnswer})
	srv.Reply(llm.Response{Content: streamedAnswer})
	agentDir := writeAgent(t, "llm:\n  model: test-model\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	cmd, screen, ended := startOnTerminal(t, deltaRun(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "tty", "--format", "raw"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	ended()
	shown := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	if !strings.Contains(shown, "thought:\n  Streaming answers\n  arrive in pieces.\n") || strings.Count(shown, "arrive in pieces.") != 1 {
		t.Errorf("terminal shows:\n%s", shown)
	}
	if srv.Requests()[0].Params["stream"] != true {
		t.Error("on a terminal the model was not asked to stream")
	}
	if _, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "pipe"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if reqs := srv.Requests(); reqs[len(reqs)-1].Params["stream"] != nil {
		t.Error("in a pipe the model was asked to stream")
	}
}

// TestWaitingIndicator: on a terminal, a tool that takes a while shows
// "running NAME · Ns", erased before the stream goes on; in a pipe there
// is no indicator at all.
func TestWaitingIndicator(t *testing.T) {
	agentDir := gatedAgent(t)
	ws := t.TempDir()
	cmd, screen, _ := startOnTerminal(t, deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "wi", "--format", "raw"))
	waitFor(t, "the indicator", func() bool { return strings.Contains(screen.String(), "running wait · ") })
	if err := os.WriteFile(filepath.Join(ws, "go.on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	waitFor(t, "the end of the stream", func() bool { return strings.Contains(screen.String(), "COMPLETED after iteration 2") })
	shown := screen.String()
	i := strings.LastIndex(shown, "running wait · ")
	if j := strings.Index(shown[i:], "\r\x1b[K"); j < 0 || !strings.Contains(shown[i+j:], "← wait") {
		t.Errorf("the indicator is not erased before the tool's result:\n%q", shown)
	}

	_, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "wp")
	if code != 0 || strings.Contains(stderr, "\x1b[K") || strings.Contains(stderr, "running wait ·") {
		t.Errorf("a pipe shows an indicator (exit %d):\n%q", code, stderr)
	}
}

// startOnTerminal starts cmd with a pseudo-terminal as its stdin and
// stderr (stdout stays a pipe) and collects what the terminal shows.
// ended, called after cmd.Wait, returns once all of it is collected.
func startOnTerminal(t *testing.T, cmd *exec.Cmd) (*exec.Cmd, *clitest.Buffer, func()) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	tty.Close()
	screen := &clitest.Buffer{}
	copied := make(chan struct{})
	go func() { io.Copy(screen, ptmx); close(copied) }()
	return cmd, screen, func() { ptmx.Close(); <-copied }
}
