package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/tool"
	"github.com/google/go-cmp/cmp"
)

// writeAgent writes files (path → content) below a new temp dir and
// returns the dir. A base agent.yaml-less agent gets system_prompt.md and
// context.yaml unless files override them.
func writeAgent(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{
		"system_prompt.md": "prompt\n",
		"context.yaml":     DefaultContextYAML,
	}
	for k, v := range files {
		base[k] = v
	}
	for name, content := range base {
		if content == "<none>" {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadFull(t *testing.T) {
	dir := writeAgent(t, map[string]string{
		"agent.yaml": `name: full
version: 1.0.0
description: everything
llm:
  provider: scripted
  model: m
  base_url: http://localhost:1
  script: script.yaml
  temperature: 0.5
  max_tokens: 100
  top_p: 0.9
  stop: END
  seed: 7
  top_k: 3
system_prompt: prompts/main.md
max_iterations: 12
tool_timeout_ms: 5000
env:
  passthrough: [GITHUB_TOKEN]
  deny: ["AWS_*"]
  inherit_secrets: true
imports: [tools/t.yaml]
tools:
  - name: local
    exec: "echo ${x}"
  - name: script
    exec: "${AGENT_HOME}/tools/run.sh ${arg}"
plugins:
  - name: search
    path: bin/plugin
    tools: [web]
    config: {depth: 2}
    allow_path: true
`,
		"script.yaml":      "turns: []\n",
		"prompts/main.md":  "main\n",
		"tools/t.yaml":     "tools:\n  - name: imported\n    shell: \"ls ${d:raw}\"\n",
		"hooks.yaml":       "pre_llm_req: {command: [x], timeout_ms: 100}\non_run_end: {plugin: p}\n",
		"system_prompt.md": "<none>",
	})
	a, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	home, _ := filepath.EvalSymlinks(dir)
	f, i7 := 0.5, int64(7)
	if diff := cmp.Diff(LLMConfig{
		Provider: "scripted", Model: "m", BaseURL: "http://localhost:1", Script: filepath.Join(home, "script.yaml"),
		Temperature: &f, MaxTokens: ptr(int64(100)), TopP: ptr(0.9), Stop: []string{"END"}, Seed: &i7,
		Extra: map[string]any{"top_k": 3},
	}, a.LLM); diff != "" {
		t.Errorf("LLM (-want +got):\n%s", diff)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"name", a.Name, "full"},
		{"version", a.Version, "1.0.0"},
		{"home", a.Home, home},
		{"config", a.ConfigPath, filepath.Join(home, "agent.yaml")},
		{"prompt", a.SystemPromptPath, filepath.Join(home, "prompts/main.md")},
		{"max_iterations", a.MaxIterations, 12},
		{"tool_timeout_ms", a.ToolTimeoutMS, 5000},
		{"env", a.Env, EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}, Deny: []string{"AWS_*"}, InheritSecrets: true}},
		{"tools", []string{a.Tools[0].Name, a.Tools[1].Name, a.Tools[2].Name}, []string{"imported", "local", "script"}},
		{"AGENT_HOME", a.Tools[2].Command, []string{filepath.Join(home, "tools/run.sh"), "${arg}"}},
		{"raw", a.Tools[0].Parameters[0].Raw, true},
		{"plugin", a.Plugins[0].Path, filepath.Join(home, "bin/plugin")},
		{"plugin config", a.Plugins[0].Config, map[string]any{"depth": 2}},
		{"hooks", len(a.Hooks), 2},
		{"hook alias", a.Hooks[PreLLMRequest].Command, []string{"x"}},
		{"hook timeout", a.Hooks[PreLLMRequest].TimeoutMS, 100},
		{"hook plugin", a.Hooks[OnRunEnd].Plugin, "p"},
		{"context sources", len(a.Context.Sources), 4},
		{"on_missing default", a.Context.Sources[0].OnMissing, "error"},
		{"on_missing", a.Context.Sources[1].OnMissing, "skip"},
		{"source line", a.Context.Sources[3].Line, 11},
		{"source index", a.Context.Sources[3].Index, 3},
		{"warnings", len(a.Warnings), 0},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
	if !strings.HasSuffix(a.Tools[0].Source, "tools/t.yaml:2:5") {
		t.Errorf("imported tool source = %q", a.Tools[0].Source)
	}
}

func ptr[T any](v T) *T { return &v }

func TestLoadDefaults(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": ""})
	a, err := Load(filepath.Join(dir, "agent.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if a.Name != filepath.Base(dir) || a.LLM.Provider != "openai" || filepath.Base(a.SystemPromptPath) != "system_prompt.md" {
		t.Errorf("defaults: name %q provider %q prompt %q", a.Name, a.LLM.Provider, a.SystemPromptPath)
	}
}

// TestLoadModelNamesProvider: without llm.provider, a model naming its
// provider (PROVIDER/MODEL, PROVIDER:MODEL, an alias) sets both; with
// llm.provider the model is kept as written.
func TestLoadModelNamesProvider(t *testing.T) {
	for _, tc := range []struct {
		llm, provider, model string
		dflt                 bool
	}{
		{"llm: {model: anthropic/claude-haiku-4-5}", "anthropic", "claude-haiku-4-5", false},
		{"llm: {model: \"gemini:gemini-2.5-flash\"}", "gemini", "gemini-2.5-flash", false},
		{"llm: {model: sonnet}", "anthropic", "claude-sonnet-4-5", false},
		{"llm: {model: gpt-4o}", "openai", "gpt-4o", true},
		{"llm: {model: meta-llama/llama-3}", "openai", "meta-llama/llama-3", true},
		{"llm: {provider: openai, model: anthropic/claude-x}", "openai", "anthropic/claude-x", false},
	} {
		dir := writeAgent(t, map[string]string{"agent.yaml": tc.llm + "\n"})
		a, err := Load(filepath.Join(dir, "agent.yaml"))
		if err != nil {
			t.Fatalf("Load(%s): %v", tc.llm, err)
		}
		if a.LLM.Provider != tc.provider || a.LLM.Model != tc.model || a.LLM.DefaultProvider != tc.dflt {
			t.Errorf("Load(%s): provider %q model %q default %v; want %q %q %v", tc.llm, a.LLM.Provider, a.LLM.Model, a.LLM.DefaultProvider, tc.provider, tc.model, tc.dflt)
		}
	}
}

// TestLoadDefaultContext: an agent without context.yaml loads with the
// default context's sources (the skills among them, as in the coding
// agents), and a warning says so.
func TestLoadDefaultContext(t *testing.T) {
	a, err := Load(writeAgent(t, map[string]string{"agent.yaml": "name: a\n", "context.yaml": "<none>"}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range a.Context.Sources {
		ids = append(ids, s.ID)
	}
	if got, want := strings.Join(ids, ","), "system_prompt,workspace_guide,skills,conversation_history"; got != want {
		t.Errorf("sources = %s, want %s", got, want)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "no context.yaml, so the model sees the default context") {
		t.Errorf("warnings = %q, want one about the default context", a.Warnings)
	}
}

func TestLoadSentinels(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.yaml"), []byte("tools: []\n"), 0o644)
	tests := []struct {
		name  string
		files map[string]string
		kind  error
	}{
		{"no config", map[string]string{}, ErrNoConfig},
		{"cycle", map[string]string{"agent.yaml": "imports: [a.yaml]\n", "a.yaml": "imports: [b.yaml]\n", "b.yaml": "imports: [a.yaml]\n"}, ErrImportCycle},
		{"self import", map[string]string{"agent.yaml": "imports: [agent.yaml]\n"}, ErrImportCycle},
		{"outside", map[string]string{"agent.yaml": "imports: [" + filepath.Join(outside, "x.yaml") + "]\n"}, ErrOutsideHome},
		{"unknown key", map[string]string{"agent.yaml": "tools:\n  - name: t\n    exce: ls\n"}, ErrUnknownKey},
		{"duplicate tool", map[string]string{"agent.yaml": "tools:\n  - {name: t, exec: a}\n  - {name: t, exec: b}\n"}, ErrDuplicateTool},
		{"missing prompt", map[string]string{"agent.yaml": "name: a\n", "system_prompt.md": "<none>"}, ErrMissingFile},
		{"metachar", map[string]string{"agent.yaml": "tools:\n  - {name: t, exec: 'a | b'}\n"}, tool.ErrMetachar},
		{"override", map[string]string{"agent.yaml": "tools:\n  - name: t\n    shell: 'cat ${f}'\n    parameters: [{name: f, inject_as: stdin}]\n"}, tool.ErrOverride},
		{"bad on_missing", map[string]string{"agent.yaml": "name: a\n", "context.yaml": "sources:\n  - {type: file, path: x, on_missing: maybe}\n"}, ErrInvalid},
		{"unknown hook", map[string]string{"agent.yaml": "name: a\n", "hooks.yaml": "on_start: {command: [x]}\n"}, ErrUnknownKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAgent(t, tc.files)
			_, err := Load(dir)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("Load error = %v, want %v", err, tc.kind)
			}
			var le *LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("Load error %T is not a *LoadError with problems", err)
			}
		})
	}
}

func TestCycleMessage(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "imports: [a.yaml]\n", "a.yaml": "imports: [b.yaml]\n", "b.yaml": "imports: [a.yaml]\n"})
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "import cycle: a.yaml → b.yaml → a.yaml") {
		t.Errorf("Load error = %v, want the cycle a.yaml → b.yaml → a.yaml", err)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"exec", "shell", "command", "max_iterations"}
	for in, want := range map[string]string{"exce": "exec", "shel": "shell", "max_iteration": "max_iterations", "zzz": "", "Exec": "exec"} {
		if got := suggest(in, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
