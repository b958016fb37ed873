package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

const testKey = "sk-chat-test-0123456789"

// chatTerm is delta-chat on a real pseudo-terminal.
type chatTerm struct {
	t      *testing.T
	cmd    *exec.Cmd
	ptmx   *os.File
	screen *clitest.Buffer
	from   int // where the next waitFor starts looking
}

func startChat(t *testing.T, env []string, args ...string) *chatTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty available: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 160}); err != nil {
		t.Fatal(err)
	}
	bin := clitest.BinDir(t)
	cmd := exec.Command(filepath.Join(bin, "delta-chat"), args...)
	cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(),
		"NO_COLOR=1", "TERM=xterm"}, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	c := &chatTerm{t: t, cmd: cmd, ptmx: ptmx, screen: &clitest.Buffer{}}
	go io.Copy(c.screen, ptmx)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		ptmx.Close()
	})
	return c
}

// waitFor waits until the screen shows s after what earlier waits saw.
func (c *chatTerm) waitFor(s string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		all := c.screen.String()
		if i := strings.Index(all[c.from:], s); i >= 0 {
			c.from += i + len(s)
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("gave up waiting for %q; the screen shows:\n%s", s, all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *chatTerm) typeLine(s string) {
	c.t.Helper()
	if _, err := c.ptmx.Write([]byte(s + "\r")); err != nil {
		c.t.Fatal(err)
	}
}

func (c *chatTerm) exitCode() int {
	c.t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		c.t.Fatal(err)
	case <-time.After(60 * time.Second):
		c.t.Fatalf("the chat did not end; the screen shows:\n%s", c.screen.String())
	}
	return -1
}

// writeAgent writes an agent talking to the fake model server.
func writeAgent(t *testing.T, yaml string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	all := map[string]string{
		"agent.yaml":       "name: chatty\nllm:\n  model: test-model\n" + yaml,
		"system_prompt.md": "You are a test agent.\n",
		"context.yaml":     "sources:\n  - type: file\n    path: '${AGENT_HOME}/system_prompt.md'\n  - type: journal\n",
	}
	for k, v := range files {
		all[k] = v
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range all {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readJournal(t *testing.T, ws string) []journal.Event {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(ws, ".delta", "*", "journal.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("want one run in %s, found %v", ws, paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var evs []journal.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev journal.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestChatOnTerminal: on a real terminal, a task typed starts the run and
// the answer streams in; a call needing approval is asked inline and
// /approve runs it; /quit leaves. The whole conversation is one run.
func TestChatOnTerminal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "call_rm", Name: "rm_file", Arguments: `{"path":"a.txt"}`})
	srv.ReplyText("Removed a.txt.\nAnything else?")
	srv.ReplyText("Bye!")
	agentDir := writeAgent(t, "tools:\n  - name: rm_file\n    exec: \"rm ${path}\"\napproval:\n  - tool: rm_file\n    decision: ask\n    reason: deletes files\n", nil)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}, "--agent", agentDir, "-w", ws)
	c.waitFor("delta chat with chatty")
	c.waitFor("> ")
	c.typeLine("please remove a.txt")
	c.waitFor("approval needed: approve rm_file: rm a.txt (deletes files)")
	c.waitFor("approve? [y/n/reason] ")
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err != nil {
		t.Fatalf("a.txt is gone before the approval: %v", err)
	}
	c.typeLine("/approve")
	c.waitFor("← rm_file")
	c.waitFor("Removed a.txt.")
	c.waitFor("Anything else?")
	c.waitFor("> ")
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
		t.Error("a.txt is still there after the approval")
	}
	c.typeLine("thanks")
	c.waitFor("Bye!")
	c.typeLine("/quit")
	if code := c.exitCode(); code != 0 {
		t.Fatalf("exit %d\n%s", code, c.screen.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Params["stream"] != true {
		t.Fatalf("requests: %d (the second one streamed: %v)", len(reqs), len(reqs) > 1 && reqs[1].Params["stream"] == true)
	}
	evs := readJournal(t, ws)
	var users []string
	approved := false
	for _, ev := range evs {
		switch {
		case ev.Type == journal.UserMessage:
			users = append(users, ev.Content)
		case ev.Type == journal.HumanInputReceived && ev.Decision == "approved" && ev.CallID == "call_rm":
			approved = true
		}
	}
	if strings.Join(users, "|") != "please remove a.txt|thanks" || !approved {
		t.Errorf("journal: user messages %q, approval journaled %v", users, approved)
	}
}

// TestChatSteerAndStop: text typed while the agent works is sent to it as
// steering and reaches the model at its next step; Ctrl-C stops the turn
// (the run is INTERRUPTED) but not the chat, and Ctrl-D leaves.
func TestChatSteerAndStop(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "call_gate", Name: "gate", Arguments: `{}`})
	srv.ReplyText("Noted the steering.")
	srv.ReplyToolCalls(llm.ToolCall{ID: "call_slow", Name: "slow", Arguments: `{}`})
	agentDir := writeAgent(t, "tools:\n  - name: gate\n    exec: \"sh gate.sh\"\n  - name: slow\n    exec: \"sleep 60\"\n", nil)
	ws := t.TempDir()
	gate := "while [ ! -e open ]; do sleep 0.02; done; echo opened\n"
	if err := os.WriteFile(filepath.Join(ws, "gate.sh"), []byte(gate), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}, "--agent", agentDir, "-w", ws)
	c.waitFor("> ")
	c.typeLine("open the gate")
	c.waitFor("→ gate")
	c.waitFor("(working; type to steer) ")
	c.typeLine("use the side door")
	c.waitFor("(sent to the agent")
	if err := os.WriteFile(filepath.Join(ws, "open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitFor("Noted the steering.")
	c.waitFor("> ")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if len(reqs) != 2 || !strings.Contains(last[len(last)-1].Content, "use the side door") {
		t.Fatalf("the steering did not reach the model: %d requests, last message %+v", len(reqs), last[len(last)-1])
	}

	c.typeLine("now wait a while")
	c.waitFor("→ slow")
	if _, err := c.ptmx.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	c.waitFor("(turn stopped; the next message goes on with the run)")
	c.waitFor("> ")
	c.typeLine("/status")
	c.waitFor(": INTERRUPTED,")
	// The line editor prints its prompt once the terminal is raw again; a
	// Ctrl-D before that reaches a cooked terminal as end-of-file, which
	// the editor's reader does not survive.
	c.waitFor("> ")
	if _, err := c.ptmx.Write([]byte{4}); err != nil { // Ctrl-D
		t.Fatal(err)
	}
	if code := c.exitCode(); code != 0 {
		t.Fatalf("exit %d\n%s", code, c.screen.String())
	}
	evs := readJournal(t, ws)
	if evs[len(evs)-1].Type != journal.EngineEnd || evs[len(evs)-1].Status != "INTERRUPTED" {
		t.Errorf("last event %+v, want ENGINE_END INTERRUPTED", evs[len(evs)-1])
	}
}

// TestChatSensitiveQuestion: a sensitive ask_human is answered inline
// without echo and stays out of the line history; the answer reaches the
// run through stdin, not the command line.
func TestChatSensitiveQuestion(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "call_pw", Name: "ask_human", Arguments: `{"prompt":"Password please","sensitive":true}`})
	srv.ReplyText("Logged in.")
	agentDir := writeAgent(t, "", nil)
	ws := t.TempDir()
	state := t.TempDir()
	c := startChat(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey, "XDG_STATE_HOME=" + state}, "--agent", agentDir, "-w", ws)
	c.waitFor("> ")
	c.typeLine("log in")
	c.waitFor("the agent asks: Password please")
	c.waitFor("answer> ")
	c.typeLine("s3cret")
	c.waitFor("Logged in.")
	c.typeLine("/quit")
	if code := c.exitCode(); code != 0 {
		t.Fatalf("exit %d\n%s", code, c.screen.String())
	}
	if strings.Contains(c.screen.String(), "s3cret") {
		t.Errorf("the answer was echoed:\n%s", c.screen.String())
	}
	history, err := os.ReadFile(filepath.Join(state, "delta", "chat_history"))
	if err != nil || !strings.Contains(string(history), "log in") || strings.Contains(string(history), "s3cret") {
		t.Errorf("history (err %v):\n%s", err, history)
	}
	var got string
	for _, ev := range readJournal(t, ws) {
		if ev.Type == journal.HumanInputReceived {
			got = ev.Response
		}
	}
	if got != "s3cret" {
		t.Errorf("HUMAN_INPUT_RECEIVED response %q", got)
	}
}

// TestChatSteerBeforeInterrupt: steers typed while the agent works and
// then stopped with Ctrl-C before the agent read them are not lost, the
// one sent with Enter nor the one still being typed: they go in with the
// next message, after it, in the same model request.
func TestChatSteerBeforeInterrupt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "call_slow", Name: "slow", Arguments: `{}`})
	srv.ReplyText("Read both.")
	agentDir := writeAgent(t, "tools:\n  - name: slow\n    exec: \"sleep 60\"\n", nil)
	ws := t.TempDir()
	c := startChat(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}, "--agent", agentDir, "-w", ws)
	c.waitFor("> ")
	c.typeLine("wait a while")
	c.waitFor("→ slow")
	c.waitFor("(working; type to steer) ")
	c.typeLine("also check the logs")
	c.waitFor("(sent to the agent")
	c.waitFor("(working; type to steer) ")
	// A second steer is typed but not sent when Ctrl-C comes.
	if _, err := c.ptmx.Write([]byte("and the config")); err != nil {
		t.Fatal(err)
	}
	c.waitFor("and the config")
	if _, err := c.ptmx.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	c.waitFor(`(kept "and the config": the agent gets it with your next message)`)
	c.waitFor("(turn stopped;")
	c.waitFor("> ")
	c.typeLine("go on")
	c.waitFor("Read both.")
	c.waitFor("> ")
	c.typeLine("/quit")
	if code := c.exitCode(); code != 0 {
		t.Fatalf("exit %d\n%s", code, c.screen.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	var users []string
	for _, m := range reqs[1].Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	got := strings.Join(users, "|")
	if !strings.Contains(got, "also check the logs") || !strings.Contains(got, "and the config") || !strings.Contains(got, "go on") ||
		strings.Index(got, "go on") > strings.Index(got, "also check the logs") {
		t.Errorf("the second request's user messages are %q: want the next message, then the steers typed before Ctrl-C", users)
	}
	var journaled []string
	for _, ev := range readJournal(t, ws) {
		if ev.Type == journal.UserMessage {
			journaled = append(journaled, ev.Content+"("+ev.Source+")")
		}
	}
	if want := "wait a while()|go on()|also check the logs(steer)|and the config(steer)"; strings.Join(journaled, "|") != want {
		t.Errorf("journaled user messages %q, want %q", strings.Join(journaled, "|"), want)
	}
}
