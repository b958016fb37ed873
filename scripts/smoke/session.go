package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/lock"
)

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
	// all are the events of every step so far.
	all []journal.Event
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

// setup installs the first-party plugins and makes the agent from the
// provider's template, with the shell timeout the timeout step expects
// and, when asked and supported, subagents.
func (s *session) setup(ctx context.Context) error {
	for _, d := range []string{s.ws, s.logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, bin := range lock.FirstPartyBinaries {
		if _, err := s.delta(ctx, "setup", "plugin", "install", filepath.Join(s.cfg.Bin, bin)); err != nil {
			return err
		}
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
