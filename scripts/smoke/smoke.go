package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// Status of one check or matrix cell.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Skipped = "skipped"
	NotRun  = "-" // the smoke test does not exercise this case
)

// Provider is one model provider the smoke test may drive.
type Provider struct {
	Name     string   `json:"name"`     // openai, anthropic, gemini
	Template string   `json:"template"` // the delta init template of its coding agent
	Model    string   `json:"model"`
	Env      []string `json:"-"` // the provider variables its runs get
	Skip     string   `json:"skip,omitempty"`
}

// providerKeys are the variables that select a provider, in the order
// tried; every one of them (and the base URLs) is removed from a run's
// environment but those of the provider it drives, so that no key reaches
// another provider's endpoint.
var providerKeys = map[string][]string{
	"openai":    {"OPENAI_API_KEY", "DELTA_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"gemini":    {"GEMINI_API_KEY"},
}

var providerURLs = map[string][]string{
	"openai":    {"DELTA_BASE_URL", "OPENAI_BASE_URL"},
	"anthropic": {"ANTHROPIC_BASE_URL"},
	"gemini":    {"GEMINI_BASE_URL"},
}

// DefaultModels are the models driven unless -model says otherwise: the
// smaller model of each family, which is enough to exercise the tools.
var DefaultModels = map[string]string{
	"openai":    "gpt-5-mini",
	"anthropic": "claude-haiku-4-5",
	"gemini":    "gemini-2.5-flash",
}

// ProviderNames is the matrix's column order.
var ProviderNames = []string{"openai", "anthropic", "gemini"}

// Detect says which providers have a key in env, and with which model.
func Detect(env map[string]string, models map[string]string) []Provider {
	var out []Provider
	for _, name := range ProviderNames {
		p := Provider{Name: name, Template: "coding-" + name, Model: DefaultModels[name]}
		if m := models[name]; m != "" {
			p.Model = m
		}
		for _, k := range append(slices.Clone(providerKeys[name]), providerURLs[name]...) {
			if v := strings.TrimSpace(env[k]); v != "" {
				p.Env = append(p.Env, k+"="+v)
			}
		}
		if !slices.ContainsFunc(providerKeys[name], func(k string) bool { return strings.TrimSpace(env[k]) != "" }) {
			p.Skip = "no " + strings.Join(providerKeys[name], " or ") + " set"
		}
		out = append(out, p)
	}
	return out
}

// Config is one smoke test.
type Config struct {
	// Bin holds the Delta binaries (delta, delta-run …, delta-plugin-coding).
	Bin string
	// Root is where each provider's agent and workspace are made.
	Root string
	// Env is the environment of every command, provider variables removed.
	Env []string
	// ShellTimeoutMS is the agents' shell timeout, which the timeout step
	// expects to see (10 s).
	ShellTimeoutMS int
	// StepTimeout bounds each step's run.
	StepTimeout time.Duration
	// Subagents enables the subagent step (agent.yaml subagents: on).
	Subagents bool
	// Log receives progress.
	Log io.Writer
}

// Check is one verified expectation of a step.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// ProviderResult is what the smoke test found for one provider.
type ProviderResult struct {
	Provider
	Checks []Check `json:"checks"`
	// Dir keeps the agent, workspace and logs.
	Dir string `json:"dir,omitempty"`
}

func (r *ProviderResult) add(name, status, detail string) {
	r.Checks = append(r.Checks, Check{Name: name, Status: status, Detail: detail})
}

func (r *ProviderResult) status(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Failed reports whether any check failed.
func (r *ProviderResult) Failed() bool {
	return slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == Fail })
}

// profile names the tools of a template's profile the checks look for.
type profile struct {
	shell, edit string
	read        []string
	search      []string
}

var profiles = map[string]profile{
	"openai":    {shell: "shell", edit: "apply_patch", read: []string{"read_file"}, search: []string{"grep_files", "glob", "list_dir"}},
	"anthropic": {shell: "shell", edit: "edit_file", read: []string{"read_file"}, search: []string{"grep", "glob"}},
	"gemini": {shell: "run_shell_command", edit: "replace", read: []string{"read_file", "read_many_files"},
		search: []string{"search_file_content", "glob", "list_directory"}},
}

// The smoke test's prompts.
const (
	promptCreate   = "Create a file called hello.py that prints 'Hello World'"
	promptEdit     = "Read hello.py and add a second print statement that says 'Goodbye'"
	promptMulti    = "Create a file greet.py with a function greet(name) that returns 'Hello, ' + name, and change hello.py to import it and print greet('World') in place of its first print statement"
	promptSearch   = "Which Python files in this workspace mention 'Goodbye'? Use your search tools, not the shell, and name the files in your answer."
	promptShell    = "Run hello.py and show the output"
	promptBig      = "Read big.txt"
	promptFlask    = "Create a Flask web application with multiple routes"
	promptSteer    = "Actually, just create a single /health endpoint for now"
	promptSubagent = "Spawn a subagent to write tests for hello.py, then review its output"
	promptSleep    = "Run 'sleep 30' with the default timeout"
	promptEffort   = "In one line and without tools: what does hello.py print?"
	effort         = "medium"
	bigChars       = 100_000
	runID          = "smoke"
)

// session is one provider's agent and workspace and the run they share.
type session struct {
	cfg    Config
	p      Provider
	prof   profile
	res    *ProviderResult
	agent  string
	ws     string
	logs   string
	env    []string
	start  bool // delta run was given the first prompt (the run may not exist)
	runDir string
	// noRun is the step whose delta run failed before the run existed
	// (refused: a key, a plugin): the later steps, which continue that
	// run, are skipped, naming it, instead of failing with "no existing
	// run".
	noRun string
}

// Run drives one provider through every step.
func Run(ctx context.Context, cfg Config, p Provider) *ProviderResult {
	res := &ProviderResult{Provider: p}
	if p.Skip != "" {
		return res
	}
	s := &session{cfg: cfg, p: p, prof: profiles[p.Name], res: res}
	s.res.Dir = filepath.Join(cfg.Root, p.Name)
	s.agent, s.ws, s.logs = filepath.Join(s.res.Dir, "agent"), filepath.Join(s.res.Dir, "ws"), filepath.Join(s.res.Dir, "logs")
	s.env = append(slices.Clone(cfg.Env), "PATH="+cfg.Bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DELTA_PLUGIN_DIR="+filepath.Join(s.res.Dir, "plugins"))
	s.env = append(s.env, p.Env...)
	if err := s.setup(ctx); err != nil {
		res.add("setup", Fail, err.Error())
		return res
	}
	res.add("setup", Pass, "")
	s.steps(ctx)
	return res
}

// setup installs the coding plugin and makes the agent from the
// provider's template, with the shell timeout the timeout step expects
// and, when asked and supported, subagents.
func (s *session) setup(ctx context.Context) error {
	for _, d := range []string{s.ws, s.logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if _, err := s.delta(ctx, "setup", "plugin", "install", filepath.Join(s.cfg.Bin, "delta-plugin-coding")); err != nil {
		return err
	}
	if _, err := s.delta(ctx, "setup", "init", "-t", s.p.Template, s.agent); err != nil {
		return err
	}
	path := filepath.Join(s.agent, "agent.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(data)
	if i := strings.Index(text, "shell_timeout_ms:"); i >= 0 {
		end := i + strings.IndexByte(text[i:], '\n')
		text = text[:i] + fmt.Sprintf("shell_timeout_ms: %d", s.cfg.ShellTimeoutMS) + text[end:]
	}
	if s.cfg.Subagents {
		text += "\nsubagents: {enabled: true, max_depth: 1}\n"
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	_, err = s.delta(ctx, "setup", "tool", "expand", s.agent, "--check")
	return err
}

// delta runs one delta command for step, its stderr kept in the step's
// log, and returns its stdout.
func (s *session) delta(ctx context.Context, step string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.cfg.Bin, "delta"), args...)
	cmd.Env = s.env
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	logf, err := os.OpenFile(filepath.Join(s.logs, s.p.Name+"-"+step+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "$ delta %s\n", strings.Join(args, " "))
	cmd.Stderr = logf
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("delta %s: %v (see %s)", strings.Join(args, " "), err, logf.Name())
	}
	return stdout.Bytes(), nil
}

// submitArgs are the arguments of one prompt to the session's run: run
// the first time, continue after.
func (s *session) submitArgs(prompt string) []string {
	common := []string{"-w", s.ws, "--run-id", runID, "-m", prompt, "-y", "--format", "json"}
	if !s.start {
		s.start = true
		return append([]string{"run", "--agent", s.agent, "--llm", s.p.Name + "/" + s.p.Model, "--max-iterations", "30"}, common...)
	}
	return append([]string{"continue", "--max-iterations", "30"}, common...)
}

// submit sends one prompt and returns the events it added.
func (s *session) submit(ctx context.Context, step, prompt string) ([]journal.Event, error) {
	before := s.seq()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
	defer cancel()
	starts := !s.start
	out, err := s.delta(ctx, step, s.submitArgs(prompt)...)
	if starts {
		s.started(step, err)
	}
	events := s.eventsAfter(before)
	if err != nil {
		return events, err
	}
	return events, completed(out)
}

// started notes the outcome of step, whose delta run starts the session's
// run: when it failed before the run existed, the later steps have no run
// to continue (noRun).
func (s *session) started(step string, err error) {
	if err == nil {
		return
	}
	if _, ferr := runs.Find(s.ws, runID); errors.Is(ferr, runs.ErrNoRun) {
		s.noRun = step
	}
}

// skipNoRun records the checks as skipped when there is no run to
// continue, saying which step failed, and reports whether it did.
func (s *session) skipNoRun(checks ...string) bool {
	if s.noRun == "" {
		return false
	}
	why := fmt.Sprintf("the %s step failed before the run existed: there is no run to continue", s.noRun)
	for _, name := range checks {
		fmt.Fprintf(s.cfg.Log, "smoke: %s: %s: skipped: %s\n", s.p.Name, name, why)
		s.res.add(name, Skipped, why)
	}
	return true
}

// completed checks a RunResult says COMPLETED.
func completed(out []byte) error {
	var r struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("read the run's result: %v", err)
	}
	if r.Status != "COMPLETED" {
		return fmt.Errorf("the run ended %s", r.Status)
	}
	return nil
}

func (s *session) journal() []journal.Event {
	if s.runDir == "" {
		d, err := runs.Find(s.ws, runID)
		if err != nil {
			return nil
		}
		s.runDir = d
	}
	events, _ := journal.ReadFile(filepath.Join(s.runDir, runs.JournalFile))
	return events
}

func (s *session) seq() int64 {
	ev := s.journal()
	if len(ev) == 0 {
		return 0
	}
	return ev[len(ev)-1].Seq
}

func (s *session) eventsAfter(seq int64) []journal.Event {
	var out []journal.Event
	for _, e := range s.journal() {
		if e.Seq > seq {
			out = append(out, e)
		}
	}
	return out
}

// steps runs the smoke test's steps in one run, as one session.
func (s *session) steps(ctx context.Context) {
	var all []journal.Event
	step := func(name, prompt string, check func(events []journal.Event) error) {
		if s.skipNoRun(name) {
			return
		}
		fmt.Fprintf(s.cfg.Log, "smoke: %s: %s\n", s.p.Name, name)
		events, err := s.submit(ctx, name, prompt)
		all = append(all, events...)
		if err == nil {
			err = check(events)
		}
		s.result(name, err)
	}
	step("create", promptCreate, func([]journal.Event) error {
		return s.fileContains("hello.py", "Hello")
	})
	step("edit", promptEdit, func(events []journal.Event) error {
		if err := s.fileContains("hello.py", "Hello", "Goodbye"); err != nil {
			return err
		}
		// The family's own editing format, and a read before the edit.
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
	})
	step("multi_edit", promptMulti, func([]journal.Event) error {
		if err := s.fileContains("greet.py", "def greet"); err != nil {
			return err
		}
		return s.fileContains("hello.py", "greet")
	})
	step("search", promptSearch, func(events []journal.Event) error {
		if firstCall(events, s.prof.search...) < 0 {
			return fmt.Errorf("no %s call", strings.Join(s.prof.search, ", "))
		}
		if answer := lastAnswer(events); !strings.Contains(answer, "hello.py") {
			return fmt.Errorf("the answer does not name hello.py: %.200q", answer)
		}
		return nil
	})
	s.reasoning(ctx, step)
	step("shell", promptShell, func(events []journal.Event) error {
		for _, e := range results(events, s.prof.shell) {
			if strings.Contains(e.ObservationContent, "Hello") || strings.Contains(e.ObservationContent, "Goodbye") {
				return nil
			}
		}
		return fmt.Errorf("no %s call printed Hello or Goodbye", s.prof.shell)
	})
	if err := os.WriteFile(filepath.Join(s.ws, "big.txt"), bytes.Repeat([]byte("x"), bigChars), 0o644); err != nil {
		s.result("truncation", err)
	} else {
		step("truncation", promptBig, func(events []journal.Event) error {
			for _, e := range events {
				if e.Type == journal.ActionResult && strings.Contains(e.ObservationContent, "Tool output was truncated") &&
					len(e.ObservationContent) < bigChars {
					return wholeKept(s.ws, e.ObservationContent)
				}
			}
			return errors.New("no tool result with a truncation marker")
		})
	}
	s.steer(ctx, &all)
	if s.cfg.Subagents {
		step("subagent", promptSubagent, func(events []journal.Event) error {
			if firstCall(events, "spawn_agent") < 0 {
				return errors.New("no spawn_agent call")
			}
			if firstCall(events, "wait") < 0 {
				return errors.New("spawn_agent but no wait for the subagent")
			}
			return nil
		})
	} else {
		s.res.add("subagent", Skipped, "not asked for (-subagents=false)")
	}
	step("timeout", promptSleep, func(events []journal.Event) error {
		want := fmt.Sprintf("timed out after %dms", s.cfg.ShellTimeoutMS)
		for _, e := range results(events, s.prof.shell) {
			if strings.Contains(e.ObservationContent, want) {
				return nil
			}
		}
		return fmt.Errorf("no %s result saying %q", s.prof.shell, want)
	})
	if s.noRun != "" {
		// What the skipped steps would have decided: the checks read
		// from their events (edit_format …, parallel, error_recovery).
		var rest []string
		for _, r := range Rows {
			for _, name := range r.Checks {
				if _, ok := s.res.status(name); !ok {
					rest = append(rest, name)
				}
			}
		}
		s.skipNoRun(rest...)
		return
	}
	s.observed(all)
}

// reasoning runs one step with llm.reasoning_effort set in agent.yaml
// (each continue reads agent.yaml again) and checks that the model
// requests carried it; agent.yaml is restored after.
func (s *session) reasoning(ctx context.Context, step func(string, string, func([]journal.Event) error)) {
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
	step("reasoning_effort", promptEffort, func(events []journal.Event) error {
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
func (s *session) steer(ctx context.Context, all *[]journal.Event) {
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
	*all = append(*all, events...)
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
