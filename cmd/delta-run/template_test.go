package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// TestHelloWorldExampleMatchesTemplate keeps examples/hello-world (what the
// README and make demo run) identical to what init -t hello-world writes.
func TestHelloWorldExampleMatchesTemplate(t *testing.T) {
	for _, name := range []string{"agent.yaml", "system_prompt.md", "context.yaml", "script.yaml"} {
		tmpl, err := templates.ReadFile("templates/hello-world/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(string(tmpl), "{{NAME}}", "hello-world")
		got, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello-world", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("examples/hello-world/%s differs from templates/hello-world/%s", name, name)
		}
	}
}

// TestCodingTemplates: each coding template loads, selects the coding
// plugin's profile of its family with shell calls allowed their 10
// minutes, has the web plugin's web_fetch, lists the skills in its
// context with seeds/001's 200 tool rounds per input, and its system
// prompt teaches that family's editing tool and web_fetch.
func TestCodingTemplates(t *testing.T) {
	for _, tc := range []struct {
		template, profile, provider string
		prompt                      []string
	}{
		{"coding-openai", "openai", "openai", []string{"apply_patch", "*** Begin Patch", "AGENTS.md", "timeout_ms", "web_fetch"}},
		{"coding-anthropic", "anthropic", "anthropic", []string{"edit_file", "old_string", "unique", "read_file", "timeout", "web_fetch"}},
		{"coding-gemini", "gemini", "gemini", []string{"replace", "run_shell_command", "read_many_files", "GEMINI.md", "timeout_ms", "web_fetch"}},
	} {
		t.Run(tc.template, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "agent")
			var stderr bytes.Buffer
			if err := (&InitCmd{Name: dir, Template: tc.template}).Run(cli.Stdio{Out: io.Discard, Err: &stderr}); err != nil {
				t.Fatal(err)
			}
			a, err := agent.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if a.LLM.Provider != tc.provider || len(a.Plugins) != 2 || a.Plugins[0].Name != "coding" || a.Plugins[1].Name != "web" ||
				a.Plugins[0].Config["profile"] != tc.profile || a.ToolTimeoutMS < 600000 {
				t.Errorf("agent: provider %q, plugins %+v, tool_timeout_ms %d; want provider %s, the coding plugin with profile %s and the web plugin, tool_timeout_ms >= 600000",
					a.LLM.Provider, a.Plugins, a.ToolTimeoutMS, tc.provider, tc.profile)
			}
			checkSkillsAndRounds(t, a)
			prompt, err := os.ReadFile(filepath.Join(dir, "system_prompt.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.prompt {
				if !strings.Contains(string(prompt), want) {
					t.Errorf("system_prompt.md does not mention %q", want)
				}
			}
		})
	}
}

// TestDefaultAgentTemplate: the agent delta init writes when no template
// is named lists the skills in its context and stops after seeds/001's
// 200 tool rounds per input, as the coding agents do, with an iteration
// limit above it (so the round limit, not a failure, ends a long input).
func TestDefaultAgentTemplate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	field, _ := reflect.TypeFor[InitCmd]().FieldByName("Template")
	cmd := &InitCmd{Name: dir, Template: field.Tag.Get("default")}
	if err := cmd.Run(cli.Stdio{Out: io.Discard, Err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	a, err := agent.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkSkillsAndRounds(t, a)
	if a.MaxIterations <= a.MaxToolRoundsPerInput {
		t.Errorf("max_iterations %d, want more than max_tool_rounds_per_input %d", a.MaxIterations, a.MaxToolRoundsPerInput)
	}
}

// checkSkillsAndRounds: a has the skills context source and 200 tool
// rounds per input.
func checkSkillsAndRounds(t *testing.T, a *agent.Agent) {
	t.Helper()
	skills := false
	for _, src := range a.Context.Sources {
		skills = skills || src.Type == agent.SourceSkills
	}
	if !skills || a.MaxToolRoundsPerInput != 200 {
		t.Errorf("context sources %+v, max_tool_rounds_per_input %d; want a skills source and 200", a.Context.Sources, a.MaxToolRoundsPerInput)
	}
}

// TestDefaultAgentStopsAt200Rounds: the agent delta init writes, given a
// model that never stops calling tools, ends the input after 200 rounds
// COMPLETED with the model's last text and a TURN_LIMIT event, as
// seeds/001 says, where it used to fail at 30 iterations.
func TestDefaultAgentStopsAt200Rounds(t *testing.T) {
	root := t.TempDir()
	agentDir, ws := filepath.Join(root, "agent"), filepath.Join(root, "ws")
	if _, stderr, code := runDelta(t, nil, "init", agentDir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	var script strings.Builder
	script.WriteString("turns:\n")
	for i := range 210 {
		fmt.Fprintf(&script, "  - content: round %d\n    tool_calls:\n      - name: list_files\n        args: {directory: .}\n", i+1)
	}
	scriptPath := filepath.Join(root, "script.yaml")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "loop", "-y",
		"--llm", "scripted:"+scriptPath, "--run-id", "r1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res runs.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not a RunResult: %v\n%s", err, stdout)
	}
	if res.Status != runs.Completed || res.Metrics.Iterations != 200 || string(res.Result) != `"round 200"` {
		t.Errorf("status %s after %d iterations, result %s; want COMPLETED after 200 with \"round 200\"", res.Status, res.Metrics.Iterations, res.Result)
	}
	limits := ofType(readEvents(t, filepath.Join(ws, ".delta", "r1", "journal.jsonl")), journal.TurnLimit)
	if len(limits) != 1 || limits[0].Kind != journal.KindMaxToolRounds {
		t.Errorf("TURN_LIMIT events %+v, want one of kind %s", limits, journal.KindMaxToolRounds)
	}
}
