package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/google/go-cmp/cmp"
)

func TestLoadDefaults(t *testing.T) {
	f := loadTestFile(t, `
agents:
  a:
    model: sonnet
    system_prompt: |
      You are ${{ workflow.name }}.
`)
	if f.Name != "wf" {
		t.Errorf("Name = %q, want the file's name wf", f.Name)
	}
	c := f.Context
	if !c.Enabled || c.Provider != ProviderFile || c.Dir.S != DefaultDir || c.Channel.S != DefaultChannel || c.Document.S != DefaultDocument {
		t.Errorf("context = %+v, want the file provider's defaults", c)
	}
	a := f.Agents[0]
	if diff := cmp.Diff(Model{Provider: "anthropic", Name: "claude-sonnet-4-5"}, a.LLM); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
	if a.Backend != BackendDelta {
		t.Errorf("backend = %q, want delta", a.Backend)
	}
	got, err := a.SystemPrompt.Expand(Vars{Workflow: "wf"})
	if err != nil || got != "You are wf.\n" {
		t.Errorf("Expand = %q, %v", got, err)
	}
}

func TestLoadContextFalse(t *testing.T) {
	f := loadTestFile(t, "agents:\n  a: {model: openai/x}\ncontext: false\n")
	if f.Context.Enabled {
		t.Error("context: false left the context enabled")
	}
}

func TestParseModel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Model
		err  bool
	}{
		{in: "openai/gpt-4o-mini", want: Model{Provider: "openai", Name: "gpt-4o-mini"}},
		{in: "anthropic:claude-opus-4-1", want: Model{Provider: "anthropic", Name: "claude-opus-4-1"}},
		{in: "openai/meta-llama/llama-3", want: Model{Provider: "openai", Name: "meta-llama/llama-3"}},
		{in: "claude-haiku-4-5", want: Model{Provider: "anthropic", Name: "claude-haiku-4-5"}},
		{in: "gpt-4o", want: Model{Provider: "openai", Name: "gpt-4o"}},
		{in: "scripted:s.yaml", want: Model{Provider: "scripted", Name: "scripted", Script: "/d/s.yaml"}},
		{in: "gemini/pro", err: true},
		{in: "openai/", err: true},
		{in: "scripted:", err: true},
	} {
		got, err := ParseModel(tc.in, "/d")
		if (err != nil) != tc.err {
			t.Errorf("ParseModel(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); !tc.err && diff != "" {
			t.Errorf("ParseModel(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// Variables are checked where each text is used, and a bad one is
// reported at its own line and column.
func TestVariableScopes(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // "" for no problem
	}{
		{"setup var in kickoff", "setup:\n  - shell: echo\n    as: x\nkickoff: '${{ x }}'\n", ""},
		{"later setup var in setup", "setup:\n  - shell: echo ${{ y }}\n  - shell: echo\n    as: y\n", "wf.yaml:3:17: unknown variable ${{ y }} in setup"},
		{"env anywhere", "kickoff: '${{ env.HOME }} ${{ workflow.instance }}'\n", ""},
		{"context without context", "context: false\nkickoff: x ${{ context.document }}\n", "wf.yaml:3:12: unknown variable ${{ context.document }} in kickoff"},
		{"agent vars outside command", "kickoff: '${{ agent.name }}'\n", "wf.yaml:2:11: unknown variable ${{ agent.name }} in kickoff"},
		{"setup var in context dir", "setup:\n  - shell: echo\n    as: x\ncontext:\n  config:\n    dir: d/${{ x }}\n", "wf.yaml:7:12: unknown variable ${{ x }} in context: config: dir"},
		{"block scalar column", "kickoff: |\n  first\n    then ${{ nope }}\n", "wf.yaml:4:10: unknown variable ${{ nope }} in kickoff"},
		{"reserved as", "setup:\n  - shell: echo\n    as: env\n", `wf.yaml:4:9: "env" is reserved`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "wf.yaml")
			// The agents take line 1: the lines of want count from 2.
			src := "agents: {a: {model: openai/x}}\n" + tc.src
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			wd, _ := os.Getwd()
			os.Chdir(dir)
			defer os.Chdir(wd)
			_, err := Load(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want a problem containing %q", err, tc.want)
			}
			if strings.Contains(tc.want, "unknown variable") && !errors.Is(err, ErrUnknownVariable) {
				t.Errorf("errors.Is(err, ErrUnknownVariable) = false")
			}
			var le *agent.LoadError
			if !errors.As(err, &le) {
				t.Errorf("error is %T, want *agent.LoadError", err)
			}
		})
	}
}

func TestExpandEnv(t *testing.T) {
	text := Text{S: "a ${{env.X}} b ${{ workflow.name }}"}
	got, err := text.Expand(Vars{Workflow: "w", Env: func(k string) (string, bool) { return map[string]string{"X": "1"}[k], k == "X" }})
	if err != nil || got != "a 1 b w" {
		t.Errorf("Expand = %q, %v; want \"a 1 b w\"", got, err)
	}
	_, err = Text{S: "${{ env.UNSET_X }}"}.Expand(Vars{Env: func(string) (string, bool) { return "", false }})
	if err == nil || !strings.Contains(err.Error(), "environment variable UNSET_X is not set") {
		t.Errorf("Expand of an unset variable = %v", err)
	}
}

// FuzzLoad: no workflow file makes Load panic.
func FuzzLoad(f *testing.F) {
	f.Add("agents:\n  a:\n    model: openai/x\nkickoff: '@a ${{ workflow.name }}'\n")
	f.Add("agents: {a: {backend: command, command: [x, '${{ agent.mcp_config }}']}}\ncontext: {provider: memory}\n")
	f.Add("kickoff: |\n  ${{ x\n  }} ${{}}\nsetup: [{shell: x, as: y}]\n")
	f.Add("context: {config: {dir: '${{ env.HOME }}', channel: ../x}}\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(dir, "wf.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		Load(path)
	})
}
