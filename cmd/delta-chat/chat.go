package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// session is one chat: the agent, the run it continues, and what the run
// is doing or waiting for.
type session struct {
	bin      string   // delta-run
	agentDir string   // the agent
	name     string   // its name, for the greeting
	ws       string   // the run's workspace ("" until a new run has one)
	fixedWS  bool     // -w was given: /new keeps it
	runID    string   // "" until the first message starts a run
	extra    []string // --llm, -v for every invocation

	con     console
	stdout  io.Writer // final answers, without a terminal
	turn    *turn     // the invocation under way, nil when idle
	waiting *runs.Request
	// lastCode is the last turn's exit code: without a terminal, the
	// chat's own when it did not complete.
	lastCode int
	quitting bool
}

// chat runs the conversation until Ctrl-D, /quit or the end of the input.
func (s *session) chat(std cli.Stdio) error {
	if in, ok := std.In.(*os.File); ok && cli.IsTerminal(std.In) && cli.IsTerminal(std.Err) {
		t, err := newTerminal(in, std.Err)
		if err != nil {
			return err
		}
		s.con = t
	} else {
		s.con = newPlain(std.In, std.Err)
		s.stdout = std.Out
	}
	defer s.con.Close()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	s.greet()
	s.resumeWaiting()
	for {
		if s.quitting && s.turn == nil {
			break
		}
		s.prompt()
		var done chan turnEnd
		if s.turn != nil {
			done = s.turn.done
		}
		select {
		case in := <-s.con.Lines():
			switch {
			case in.eof:
				s.quit()
			case in.interrupt:
				s.keepTyped(in.line)
				s.interrupt()
			default:
				s.line(in.line)
			}
		case end := <-done:
			s.ended(end)
		case sig := <-sigs:
			if sig == os.Interrupt && !s.con.Live() && s.turn == nil {
				return &cli.Error{Code: runs.ExitInterrupted, Silent: true, Err: fmt.Errorf("interrupted")}
			}
			if sig != os.Interrupt {
				s.quit()
			} else {
				s.interrupt()
			}
		}
	}
	if !s.con.Live() && s.lastCode != 0 {
		return &cli.Error{Code: s.lastCode, Silent: true, Err: fmt.Errorf("the last turn ended with exit code %d", s.lastCode)}
	}
	return nil
}

func (s *session) say(format string, args ...any) {
	fmt.Fprintf(s.con.Out(), format+"\n", args...)
}

func (s *session) greet() {
	if !s.con.Live() {
		return
	}
	what := "a new run starts with your first message"
	if s.runID != "" {
		what = "continuing run " + s.runID
	}
	s.say("delta chat with %s (%s). /help lists the commands; Ctrl-C stops a turn, Ctrl-D leaves.", s.name, what)
}

// resumeWaiting picks up what a resumed run waits for, and asks it.
func (s *session) resumeWaiting() {
	if s.runID == "" {
		return
	}
	runDir, err := runs.Find(s.ws, s.runID)
	if err != nil {
		return
	}
	if m, err := runs.ReadMetadata(runDir); err != nil || m.Status != runs.WaitingForInput {
		return
	}
	if r, err := runs.ReadRequest(runDir); err == nil {
		s.waiting = r
		s.ask()
	}
}

// prompt asks for the next line, as the state wants it.
func (s *session) prompt() {
	switch {
	case s.quitting:
	case s.turn != nil:
		if s.con.Live() {
			s.con.Ask("(working; type to steer) ", false)
		}
	case s.waiting != nil && runs.IsApproval(s.waiting.InputType):
		s.con.Ask("approve? [y/n/reason] ", false)
	case s.waiting != nil:
		s.con.Ask("answer> ", s.waiting.Sensitive)
	default:
		s.con.Ask("> ", false)
	}
}

// line acts on one line typed.
func (s *session) line(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") {
		s.command(text)
		return
	}
	text = strings.TrimPrefix(text, "/") // "//x" sends "/x"
	switch {
	case s.turn != nil:
		s.steer(text)
	case s.waiting != nil && runs.IsApproval(s.waiting.InputType):
		s.answerApproval(text)
	case s.waiting != nil:
		s.begin(s.continueArgs("-m", "-"), text)
	case s.runID == "":
		s.startRun(text)
	default:
		s.begin(s.continueArgs("-m", "-"), text)
	}
}

// command runs a slash command.
func (s *session) command(text string) {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/help":
		s.say("%s", helpText)
	case "/quit", "/exit":
		s.quit()
	case "/stop":
		if s.turn == nil {
			s.say("nothing is running")
			return
		}
		s.interrupt()
	case "/approve", "/deny":
		if s.waiting == nil || !runs.IsApproval(s.waiting.InputType) || s.turn != nil {
			s.say("no tool call waits for an approval")
			return
		}
		if name == "/approve" {
			s.answerApproval("approved")
		} else {
			s.deny(arg)
		}
	case "/log":
		s.showLog()
	case "/status":
		s.status()
	case "/new":
		if s.turn != nil {
			s.say("a turn is running: /stop it first")
			return
		}
		s.runID, s.waiting = "", nil
		if !s.fixedWS {
			s.ws = ""
		}
		s.say("the next message starts a new run")
	default:
		s.say("unknown command %s; /help lists them (start a message with // to send a /)", name)
	}
}

const helpText = `  /approve         approve the tool call waiting for approval
  /deny [REASON]   deny it, telling the model why
  /stop            stop the current turn (Ctrl-C)
  /log             show the whole run
  /status          the run's id, workspace and status
  /new             start a new run with the next message
  /quit            leave (Ctrl-D)
  /help            this list
Anything else is a message: it starts or continues the run, answers the
agent's question, or, while the agent works, steers it.`

// startRun starts a new run with the first message.
func (s *session) startRun(text string) {
	if s.ws == "" {
		ws, err := runs.NextWorkspace(s.agentDir)
		if err != nil {
			s.say("error: %v", err)
			return
		}
		s.ws = ws
	}
	s.runID = runs.NewID()
	args := []string{"run", "-w", s.ws, "--run-id", s.runID, "-m", "-"}
	if s.agentDir != "" { // else delta run's built-in agent
		args = append(args, "--agent", s.agentDir)
	}
	s.begin(append(args, s.common()...), text)
}

// continueArgs continues the run with more arguments.
func (s *session) continueArgs(more ...string) []string {
	return append(append([]string{"continue", "--run-id", s.runID, "-w", s.ws}, more...), s.common()...)
}

func (s *session) common() []string {
	return append([]string{"--format", "json", "--front-end"}, s.extra...)
}

// begin starts an invocation of delta-run; stdin is the message.
func (s *session) begin(args []string, stdin string) {
	t, err := startTurn(s.bin, args, stdin, s.con.Out())
	if err != nil {
		s.say("error: %v", err)
		return
	}
	s.turn, s.waiting = t, nil
}

// steer sends a line to the running run (delta send).
func (s *session) steer(text string) {
	runDir, err := runs.Find(s.ws, s.runID)
	if err == nil {
		_, err = runs.Send(runDir, text, false)
	}
	if err != nil {
		s.say("not sent (%v); try again in a moment", err)
		return
	}
	s.say("(sent to the agent: it reads it before its next step)")
}

// answerApproval answers the first call waiting for an approval: y, yes
// or approve(d) approves; n or no denies; anything else denies with that
// reason.
func (s *session) answerApproval(text string) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "y", "yes", "approve", "approved":
		s.begin(s.continueArgs("--approve", s.pendingCall()), "")
	case "n", "no", "deny", "denied":
		s.deny("")
	default:
		s.deny(text)
	}
}

// deny denies the first call waiting, with reason (when given).
func (s *session) deny(reason string) {
	if reason == "" {
		s.begin(s.continueArgs("--deny", s.pendingCall()), "")
		return
	}
	s.begin(s.continueArgs("--deny", s.pendingCall(), "-m", "-"), reason)
}

// pendingCall is the call answered now: the first one waiting.
func (s *session) pendingCall() string {
	if len(s.waiting.Pending) > 0 {
		return s.waiting.Pending[0].CallID
	}
	return s.waiting.CallID
}

// ended takes in how an invocation ended.
func (s *session) ended(end turnEnd) {
	stopped := s.turn.stopping
	s.turn = nil
	s.lastCode = end.code
	if end.err != nil {
		s.say("error: %v", end.err)
		return
	}
	r := end.result
	if r != nil && s.ws == "" {
		s.ws = r.Metadata.WorkspacePath
	}
	switch end.code {
	case runs.ExitCompleted:
		if s.stdout != nil && r != nil {
			fmt.Fprintln(s.stdout, r.Text())
		}
	case runs.ExitWaiting:
		if r == nil || r.Interaction == nil {
			s.say("the run waits for input, but did not say what for; see /log")
			return
		}
		s.waiting = r.Interaction
		s.ask()
	case runs.ExitInterrupted:
		if stopped {
			s.say("(turn stopped; the next message goes on with the run)")
		}
	case runs.ExitConfig:
		if r == nil && !s.runStarted() {
			s.runID = "" // refused before it started: the next message tries again
		}
	default:
		if r != nil {
			s.say("(the run %s; the next message goes on with it)", strings.ToLower(string(r.Status)))
		}
	}
}

// runStarted reports whether the chat's run exists.
func (s *session) runStarted() bool {
	if s.runID == "" || s.ws == "" {
		return false
	}
	_, err := runs.Find(s.ws, s.runID)
	return err == nil
}

// ask shows what the run waits for.
func (s *session) ask() {
	w := s.waiting
	if !runs.IsApproval(w.InputType) {
		s.say("the agent asks: %s", w.Prompt)
		return
	}
	prompt := w.Prompt
	if len(w.Pending) > 0 {
		prompt = w.Pending[0].Prompt
	}
	more := ""
	if n := len(w.Pending); n > 1 {
		more = fmt.Sprintf(" (1 of %d waiting)", n)
	}
	s.say("approval needed%s: %s\n  y (or /approve) runs it; n, a reason, or /deny REASON refuses it", more, prompt)
}

// interrupt stops the turn under way (Ctrl-C, /stop); idle, it says how
// to leave.
func (s *session) interrupt() {
	if s.turn == nil {
		if s.con.Live() {
			s.say("(Ctrl-D or /quit leaves the chat)")
		}
		return
	}
	if !s.turn.stopping {
		s.say("(stopping the turn …)")
		s.turn.stop()
	}
}

// keepTyped keeps a steer typed but not yet sent when Ctrl-C stops the
// turn: it goes to the run's inbox as if Enter had been pressed, so the
// agent gets it with the next message (after it) instead of losing it.
// With no turn running, Ctrl-C discards the line, as in a shell.
func (s *session) keepTyped(line string) {
	text := strings.TrimSpace(line)
	if s.turn == nil || s.turn.stopping || text == "" || strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") {
		return
	}
	text = strings.TrimPrefix(text, "/")
	runDir, err := runs.Find(s.ws, s.runID)
	if err == nil {
		_, err = runs.Send(runDir, text, false)
	}
	if err != nil {
		s.say("(the line you were typing was not kept: %v)", err)
		return
	}
	s.say("(kept %q: the agent gets it with your next message)", text)
}

// quit leaves once the turn under way, if any, has stopped.
func (s *session) quit() {
	s.quitting = true
	if s.turn != nil && !s.turn.stopping {
		s.turn.stop()
	}
}

// showLog prints the whole run (delta log).
func (s *session) showLog() {
	if s.runID == "" {
		s.say("no run yet: the first message starts one")
		return
	}
	out, err := exec.Command(s.bin, "log", "--run-id", s.runID, "-w", s.ws).CombinedOutput()
	if err != nil {
		s.say("error: %v", err)
	}
	s.con.Out().Write(out)
}

// status prints the run's id, workspace and status.
func (s *session) status() {
	if s.runID == "" {
		agentName := s.agentDir
		if agentName == "" {
			agentName = s.name
		}
		s.say("no run yet: the first message starts one (agent %s)", agentName)
		return
	}
	runDir, err := runs.Find(s.ws, s.runID)
	if err != nil {
		s.say("run %s in %s: not created", s.runID, s.ws)
		return
	}
	m, err := runs.ReadMetadata(runDir)
	if err != nil {
		s.say("error: %v", err)
		return
	}
	s.say("run %s in %s: %s, %d iterations (agent %s)", m.RunID, m.WorkDir, m.Status, m.Iterations, m.AgentName)
}
