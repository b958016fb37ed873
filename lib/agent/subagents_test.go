package agent

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSubagents(t *testing.T) {
	worker := "agents/worker/agent.yaml"
	tests := []struct {
		name    string
		yaml    string
		enabled bool
		depth   int
		agents  []string // names
	}{
		{"absent", "name: a\n", false, 1, nil},
		{"shorthand", "subagents: true\n", true, 1, []string{"."}},
		{"shorthand off", "subagents: false\n", false, 1, []string{"."}},
		{"block", "subagents:\n  enabled: true\n  max_depth: 3\n  agents: ['.', agents/worker]\n", true, 3, []string{".", "agents/worker"}},
		{"block without enabled", "subagents:\n  agents: [agents/worker]\n", false, 1, []string{"agents/worker"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAgent(t, map[string]string{"agent.yaml": tc.yaml, worker: "name: worker\n",
				"agents/worker/context.yaml": DefaultContextYAML, "agents/worker/system_prompt.md": "w\n"})
			a, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := a.Subagents
			var names []string
			for _, x := range s.Agents {
				names = append(names, x.Name)
				if !filepath.IsAbs(x.Path) {
					t.Errorf("agent %s: path %q is not absolute", x.Name, x.Path)
				}
			}
			if s.Enabled != tc.enabled || s.MaxDepth != tc.depth || !cmp.Equal(names, tc.agents) {
				t.Errorf("Subagents = {%v %d %v}, want {%v %d %v}", s.Enabled, s.MaxDepth, names, tc.enabled, tc.depth, tc.agents)
			}
		})
	}
}

func TestSubagentsProblems(t *testing.T) {
	tests := []struct {
		name, yaml string
		kind       error
		want       string
	}{
		{"typo", "subagents:\n  enabeld: true\n", ErrUnknownKey, `agent.yaml:2:3: unknown key "enabeld" in subagents (did you mean "enabled"?)`},
		{"zero depth", "subagents:\n  max_depth: 0\n", ErrInvalid, "agent.yaml:2:14: subagents.max_depth must be at least 1, not 0"},
		{"not a bool", "subagents: yes please\n", ErrInvalid, `agent.yaml:1:12: subagents must be true or false, not "yes please"`},
		{"missing dir", "subagents:\n  agents: [nowhere]\n", ErrMissingFile, `agent.yaml:2:12: subagents.agents: "nowhere" not found`},
		{"not an agent", "subagents:\n  agents: [empty]\n", ErrNoConfig, `agent.yaml:2:12: subagents.agents: "empty" holds no agent.yaml`},
		{"twice", "subagents:\n  agents: ['.', '.']\n", ErrInvalid, `agent.yaml:2:17: subagents.agents lists "." twice`},
		{"item not a string", "subagents:\n  agents: [{a: 1}, nowhere]\n", ErrMissingFile, `agent.yaml:2:20: subagents.agents: "nowhere" not found`},
		{"empty list", "subagents:\n  agents: []\n", ErrInvalid, "agent.yaml:2:11: subagents.agents is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAgent(t, map[string]string{"agent.yaml": tc.yaml, "empty/x": ""})
			t.Chdir(dir)
			_, err := Load(dir)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load error = %v, want %v containing %q", err, tc.kind, tc.want)
			}
		})
	}
	// A negative depth is one problem, not also "at least 1, not 0".
	dir := writeAgent(t, map[string]string{"agent.yaml": "subagents:\n  max_depth: -1\n"})
	var le *LoadError
	if _, err := Load(dir); !errors.As(err, &le) || len(le.Problems) != 1 || !strings.Contains(err.Error(), "subagents.max_depth must be a non-negative integer") {
		t.Errorf("Load with max_depth -1 = %v, want one problem saying it must be non-negative", err)
	}
}

func TestSubagentLookup(t *testing.T) {
	s := Subagents{Agents: []SubagentDir{{Name: ".", Path: "/a"}, {Name: "agents/w", Path: "/a/agents/w"}}}
	for name, want := range map[string]string{"": "/a", ".": "/a", "agents/w": "/a/agents/w", "./agents/w/": "/a/agents/w", "other": ""} {
		got, ok := s.Subagent(name)
		if got.Path != want || ok != (want != "") {
			t.Errorf("Subagent(%q) = %q, %v, want %q", name, got.Path, ok, want)
		}
	}
}
