package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/journal"
)

// steps runs the smoke test's steps in one run, as one session.
func (s *session) steps(ctx context.Context) {
	s.step(ctx, "create", promptCreate, func([]journal.Event) error {
		return s.fileContains("hello.py", "Hello")
	})
	s.step(ctx, "edit", promptEdit, s.edited)
	s.step(ctx, "multi_edit", promptMulti, func([]journal.Event) error {
		if err := s.fileContains("greet.py", "def greet"); err != nil {
			return err
		}
		return s.fileContains("hello.py", "greet")
	})
	s.step(ctx, "search", promptSearch, s.searched)
	s.reasoning(ctx)
	s.step(ctx, "shell", promptShell, func(events []journal.Event) error {
		for _, e := range results(events, s.prof.shell) {
			if strings.Contains(e.ObservationContent, "Hello") || strings.Contains(e.ObservationContent, "Goodbye") {
				return nil
			}
		}
		return fmt.Errorf("no %s call printed Hello or Goodbye", s.prof.shell)
	})
	s.truncation(ctx)
	s.steer(ctx)
	if s.cfg.Subagents {
		s.step(ctx, "subagent", promptSubagent, subagentSpawned)
	} else {
		s.res.add("subagent", Skipped, "not asked for (-subagents=false)")
	}
	s.step(ctx, "timeout", promptSleep, s.timedOut)
	if s.noRun != "" {
		s.skipRest()
		return
	}
	s.observed(s.all)
}

// step sends prompt to the run as step name and checks the events it
// added (when the run completed).
func (s *session) step(ctx context.Context, name, prompt string, check func(events []journal.Event) error) {
	if s.skipNoRun(name) {
		return
	}
	fmt.Fprintf(s.cfg.Log, "smoke: %s: %s\n", s.p.Name, name)
	events, err := s.submit(ctx, name, prompt)
	s.all = append(s.all, events...)
	if err == nil {
		err = check(events)
	}
	s.result(name, err)
}

// edited checks the edit step: both prints in hello.py, the family's own
// editing format (edit_format), and a read before the edit
// (read_analyze_edit).
func (s *session) edited(events []journal.Event) error {
	if err := s.fileContains("hello.py", "Hello", "Goodbye"); err != nil {
		return err
	}
	edit := firstCall(events, s.prof.edit)
	if edit < 0 {
		s.res.add("edit_format", Fail, "no "+s.prof.edit+" call")
	} else {
		s.res.add("edit_format", Pass, "")
	}
	if read := firstCall(events, append(slices.Clone(s.prof.read), s.prof.shell)...); read < 0 || edit >= 0 && read > edit {
		s.res.add("read_analyze_edit", Fail, "no read before the edit")
	} else {
		s.res.add("read_analyze_edit", Pass, "")
	}
	return nil
}

// searched checks the search step: a call of a search tool, and an answer
// naming hello.py.
func (s *session) searched(events []journal.Event) error {
	if firstCall(events, s.prof.search...) < 0 {
		return fmt.Errorf("no %s call", strings.Join(s.prof.search, ", "))
	}
	if answer := lastAnswer(events); !strings.Contains(answer, "hello.py") {
		return fmt.Errorf("the answer does not name hello.py: %.200q", answer)
	}
	return nil
}

// truncation has the model read a file of bigChars characters and checks
// the observation was cut, with the whole output kept in a file.
func (s *session) truncation(ctx context.Context) {
	if err := os.WriteFile(filepath.Join(s.ws, "big.txt"), bytes.Repeat([]byte("x"), bigChars), 0o644); err != nil {
		s.result("truncation", err)
		return
	}
	s.step(ctx, "truncation", promptBig, func(events []journal.Event) error {
		for _, e := range events {
			if e.Type == journal.ActionResult && strings.Contains(e.ObservationContent, "Tool output was truncated") &&
				len(e.ObservationContent) < bigChars {
				return wholeKept(s.ws, e.ObservationContent)
			}
		}
		return errors.New("no tool result with a truncation marker")
	})
}

// subagentSpawned checks the subagent step: a spawn_agent call and a wait
// for the subagent.
func subagentSpawned(events []journal.Event) error {
	if firstCall(events, "spawn_agent") < 0 {
		return errors.New("no spawn_agent call")
	}
	if firstCall(events, "wait") < 0 {
		return errors.New("spawn_agent but no wait for the subagent")
	}
	return nil
}

// timedOut checks the timeout step: a shell result saying the command was
// stopped at the agent's shell timeout.
func (s *session) timedOut(events []journal.Event) error {
	want := fmt.Sprintf("timed out after %dms", s.cfg.ShellTimeoutMS)
	for _, e := range results(events, s.prof.shell) {
		if strings.Contains(e.ObservationContent, want) {
			return nil
		}
	}
	return fmt.Errorf("no %s result saying %q", s.prof.shell, want)
}

// skipRest records as skipped, when the run never existed, what the
// skipped steps would have decided: the checks read from their events
// (edit_format …, parallel, error_recovery).
func (s *session) skipRest() {
	var rest []string
	for _, r := range Rows {
		for _, name := range r.Checks {
			if _, ok := s.res.status(name); !ok {
				rest = append(rest, name)
			}
		}
	}
	s.skipNoRun(rest...)
}

// reasoning runs one step with llm.reasoning_effort set in agent.yaml
// (each continue reads agent.yaml again) and checks that the model
// requests carried it; agent.yaml is restored after.
func (s *session) reasoning(ctx context.Context) {
	path := filepath.Join(s.agent, "agent.yaml")
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "\nllm:\n") {
		s.result("reasoning_effort", fmt.Errorf("agent.yaml has no llm: block to set reasoning_effort in (%v)", err))
		return
	}
	changed := strings.Replace(string(data), "\nllm:\n", "\nllm:\n  reasoning_effort: "+effort+"\n", 1)
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		s.result("reasoning_effort", err)
		return
	}
	defer os.WriteFile(path, data, 0o644)
	s.step(ctx, "reasoning_effort", promptEffort, func(events []journal.Event) error {
		want := []byte(`"reasoning_effort":"` + effort + `"`)
		n := 0
		for _, e := range events {
			if e.Type != journal.Thought || e.InvocationRef == "" {
				continue
			}
			rec, err := os.ReadFile(filepath.Join(s.runDir, e.InvocationRef))
			if err != nil {
				return err
			}
			if !bytes.Contains(rec, want) {
				return fmt.Errorf("model request %s does not carry reasoning_effort %s", e.InvocationRef, effort)
			}
			n++
		}
		if n == 0 {
			return errors.New("no model request recorded")
		}
		return nil
	})
}

// steer starts a task, sends a steering message once the model is at
// work, and checks the model got it and went on.
func (s *session) steer(ctx context.Context) {
	if s.skipNoRun("steering") {
		return
	}
	fmt.Fprintf(s.cfg.Log, "smoke: %s: steering\n", s.p.Name)
	before := s.seq()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
	defer cancel()
	var stdout bytes.Buffer
	starts := !s.start
	cmd := exec.CommandContext(ctx, filepath.Join(s.cfg.Bin, "delta"), s.submitArgs(promptFlask)...)
	cmd.Env, cmd.Stdout = s.env, &stdout
	logf, err := os.Create(filepath.Join(s.logs, s.p.Name+"-steering.log"))
	if err != nil {
		s.result("steering", err)
		return
	}
	defer logf.Close()
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		s.result("steering", err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait for the model's first tool call of this task.
	sendErr := errors.New("the run ended before the model made a tool call to steer")
wait:
	for {
		select {
		case err := <-done:
			done <- err
			break wait
		case <-time.After(100 * time.Millisecond):
		}
		if firstCall(s.eventsAfter(before)) >= 0 {
			_, sendErr = s.delta(ctx, "steering-send", "send", "-w", s.ws, "--run-id", runID, "-m", promptSteer)
			break
		}
	}
	err = <-done
	if starts {
		s.started("steering", err)
	}
	events := s.eventsAfter(before)
	s.all = append(s.all, events...)
	switch {
	case sendErr != nil:
		s.result("steering", sendErr)
	case err != nil:
		s.result("steering", fmt.Errorf("delta continue: %v (see %s)", err, logf.Name()))
	default:
		if err := completed(stdout.Bytes()); err != nil {
			s.result("steering", err)
			return
		}
		s.result("steering", steered(events, s.ws))
	}
}

// steered checks the steering message reached the model mid-task and the
// workspace has the /health endpoint.
func steered(events []journal.Event, ws string) error {
	at := slices.IndexFunc(events, func(e journal.Event) bool {
		return e.Type == journal.UserMessage && e.Content == promptSteer
	})
	if at < 0 {
		return errors.New("the steering message is not in the journal")
	}
	if !slices.ContainsFunc(events[at:], func(e journal.Event) bool { return e.Type == journal.Thought }) {
		return errors.New("the model did not answer after the steering message")
	}
	files, _ := filepath.Glob(filepath.Join(ws, "*.py"))
	more, _ := filepath.Glob(filepath.Join(ws, "*", "*.py"))
	for _, f := range append(files, more...) {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "/health") {
			return nil
		}
	}
	return errors.New("no Python file has a /health route")
}

// observed adds the checks read from the whole session: parallel tool
// calls and recovery from a failed tool call, which a model shows or not
// (NotRun when not seen).
func (s *session) observed(events []journal.Event) {
	parallel := slices.ContainsFunc(events, func(e journal.Event) bool { return e.Type == journal.Thought && len(e.ToolCalls) > 1 })
	if parallel {
		s.res.add("parallel", Pass, "")
	} else {
		s.res.add("parallel", NotRun, "the model made no parallel tool calls")
	}
	for i, e := range events {
		if e.Type == journal.ActionResult && e.IsError &&
			slices.ContainsFunc(events[i+1:], func(e journal.Event) bool { return e.Type == journal.ActionRequest }) {
			s.res.add("error_recovery", Pass, "")
			return
		}
	}
	s.res.add("error_recovery", NotRun, "no tool call failed")
}

func (s *session) result(name string, err error) {
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "smoke: %s: %s: FAIL: %v\n", s.p.Name, name, err)
		s.res.add(name, Fail, err.Error())
		return
	}
	s.res.add(name, Pass, "")
}

func (s *session) fileContains(name string, want ...string) error {
	data, err := os.ReadFile(filepath.Join(s.ws, name))
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	for _, w := range want {
		if !strings.Contains(string(data), w) {
			return fmt.Errorf("%s does not contain %q", name, w)
		}
	}
	return nil
}

// firstCall is the index of the first call of one of tools in events (any
// tool when none is named), or -1.
func firstCall(events []journal.Event, tools ...string) int {
	return slices.IndexFunc(events, func(e journal.Event) bool {
		return e.Type == journal.ActionRequest && (len(tools) == 0 || slices.Contains(tools, e.ToolName))
	})
}

// results are the ACTION_RESULTs of tool.
func results(events []journal.Event, tool string) []journal.Event {
	var out []journal.Event
	for _, e := range events {
		if e.Type == journal.ActionResult && e.ToolName == tool {
			out = append(out, e)
		}
	}
	return out
}

// lastAnswer is the last thought's text.
func lastAnswer(events []journal.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == journal.Thought {
			return events[i].Content
		}
	}
	return ""
}

// wholeKept checks that the file a truncation marker names ("… is in
// FILE: …", from the workspace) holds the whole output: at least the
// 100,000 characters of big.txt.
func wholeKept(ws, observation string) error {
	_, after, ok := strings.Cut(observation, ") is in ")
	if !ok {
		return fmt.Errorf("the truncation marker names no file holding the whole output: %.300q", observation)
	}
	file, _, _ := strings.Cut(after, ":")
	file, _, _ = strings.Cut(file, " (stdout)")
	fi, err := os.Stat(filepath.Join(ws, file))
	if err != nil {
		return fmt.Errorf("the file the truncation marker names: %w", err)
	}
	if fi.Size() < bigChars {
		return fmt.Errorf("%s holds %d bytes, not the whole output (%d characters at least)", file, fi.Size(), bigChars)
	}
	return nil
}
