package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Agents written for delta-engine 1.10 load unchanged, with warnings for
// what Delta reads differently.
func TestLoadDeltaEngineAgents(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		hooks     int
		tools     []string
		warnings  []string // substrings, one per warning, in order
		hookDescr string
	}{
		{"hooks: in agent.yaml is lifecycle_hooks",
			map[string]string{"agent.yaml": "name: a\nhooks:\n  pre_llm_request:\n    command: [./h.sh]\n"},
			1, nil, []string{"agent.yaml:2:1: hooks in agent.yaml is deprecated"}, ""},
		{"agent-level keys of an imported module are ignored",
			map[string]string{"agent.yaml": "imports: [m.yaml]\n",
				"m.yaml": "name: file-tools\nversion: 1.0.0\ndescription: d\nllm:\n  model: gpt-4\nmax_iterations: 3\ntools:\n  - {name: cat_file, exec: 'cat ${f}'}\n"},
			0, []string{"cat_file"}, []string{`m.yaml:1:1: "name" in an imported tools file is ignored`,
				`m.yaml:2:1: "version"`, `m.yaml:3:1: "description"`, `m.yaml:4:1: "llm"`, `m.yaml:6:1: "max_iterations"`}, ""},
		{"hooks may carry a description",
			map[string]string{"agent.yaml": "name: a\n", "hooks.yaml": "pre_tool_execution:\n  description: Security checks\n  command: [./check.sh]\n"},
			1, nil, nil, "Security checks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Load(writeAgent(t, tc.files))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(a.Hooks) != tc.hooks {
				t.Errorf("Load() hooks = %d, want %d", len(a.Hooks), tc.hooks)
			}
			var names []string
			for _, tl := range a.Tools {
				names = append(names, tl.Name)
			}
			if diff := cmp.Diff(tc.tools, names); diff != "" {
				t.Errorf("Load() tools mismatch (-want +got):\n%s", diff)
			}
			if len(a.Warnings) != len(tc.warnings) {
				t.Fatalf("Load() warnings = %q, want %d", a.Warnings, len(tc.warnings))
			}
			for i, w := range tc.warnings {
				if !strings.Contains(a.Warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, a.Warnings[i], w)
				}
			}
			if tc.hookDescr != "" && a.Hooks[PreToolExecution].Description != tc.hookDescr {
				t.Errorf("hook description = %q, want %q", a.Hooks[PreToolExecution].Description, tc.hookDescr)
			}
		})
	}
}

func TestLoadBothHookSpellings(t *testing.T) {
	_, err := Load(writeAgent(t, map[string]string{"agent.yaml": "lifecycle_hooks: {on_error: {command: [x]}}\nhooks: {on_error: {command: [y]}}\n"}))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "both hooks and lifecycle_hooks") {
		t.Errorf("Load() error = %v, want ErrInvalid naming both spellings", err)
	}
}

// A YAML syntax error names the line that is wrong, not the start of the
// block around it.
func TestYAMLErrorLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       string
	}{
		{"misindented key deep in a block", "name: a\ntools:\n  - name: t\n    exec: ls\n    parameters:\n      - name: d\n        type: string\n     description: x\n", "agent.yaml:8:1: invalid YAML: did not find expected key"},
		{"dedented key", "llm:\n  model: x\n  temperature: 0.5\n max_iterations: 3\n", "agent.yaml:4:1:"},
		{"tab", "name: a\n\tmodel: x\n", "agent.yaml:2:1:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeAgent(t, map[string]string{"agent.yaml": tc.yaml}))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tc.want)
			}
			var le *LoadError
			if !errors.As(err, &le) || le.Problems[0].Hint == "" {
				t.Errorf("Load() error = %v, want a problem with a hint", err)
			}
		})
	}
}

func TestLoadPrice(t *testing.T) {
	a, err := Load(writeAgent(t, map[string]string{"agent.yaml": "llm:\n  model: local\n  price: {input: 0.5, output: 1.5}\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if a.LLM.Price == nil || a.LLM.Price.Input != 0.5 || a.LLM.Price.Output != 1.5 {
		t.Errorf("Load() llm.price = %+v, want {0.5 1.5}", a.LLM.Price)
	}
	for _, bad := range []string{"price: {input: 1}", "price: {input: -1, output: 1}", "price: {input: 1, output: 1, cached: 2}"} {
		if _, err := Load(writeAgent(t, map[string]string{"agent.yaml": "llm:\n  " + bad + "\n"})); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Load(%s) error = %v, want a configuration error", bad, err)
		}
	}
}
