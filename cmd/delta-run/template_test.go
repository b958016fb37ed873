package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
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
// minutes, and its system prompt teaches that family's editing tool.
func TestCodingTemplates(t *testing.T) {
	for _, tc := range []struct {
		template, profile, provider string
		prompt                      []string
	}{
		{"coding-openai", "openai", "openai", []string{"apply_patch", "*** Begin Patch", "AGENTS.md", "timeout_ms"}},
		{"coding-anthropic", "anthropic", "anthropic", []string{"edit_file", "old_string", "unique", "read_file", "timeout"}},
		{"coding-gemini", "gemini", "gemini", []string{"replace", "run_shell_command", "read_many_files", "GEMINI.md", "timeout_ms"}},
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
			if a.LLM.Provider != tc.provider || len(a.Plugins) != 1 || a.Plugins[0].Name != "coding" ||
				a.Plugins[0].Config["profile"] != tc.profile || a.ToolTimeoutMS < 600000 {
				t.Errorf("agent: provider %q, plugins %+v, tool_timeout_ms %d; want provider %s, the coding plugin with profile %s, tool_timeout_ms >= 600000",
					a.LLM.Provider, a.Plugins, a.ToolTimeoutMS, tc.provider, tc.profile)
			}
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
