package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	dir := writeAgent(t, map[string]string{
		"agent.yaml": "tools:\n  - {name: ok, exec: 'ls ${d}'}\n  - {name: gone, exec: 'no-such-program-xyz ${d}'}\n",
		"hooks.yaml": "pre_tool_execution:\n  command: ['${AGENT_HOME}/guard.sh']\non_error:\n  command: ['${AGENT_HOME}/missing.sh']\n" +
			"on_run_end:\n  command: [no-such-notifier-xyz]\npost_tool_execution:\n  command: ['${AGENT_HOME}/ok.sh']\n",
		"context.yaml": "sources:\n  - {type: file, path: '${AGENT_HOME}/system_prompt.md'}\n" +
			"  - type: computed_file\n    generator: {command: ['${AGENT_HOME}/gen.sh']}\n    output_path: '${CWD}/s.md'\n  - {type: journal}\n",
		"guard.sh": "#!/bin/sh\n", "gen.sh": "#!/bin/sh\n", "ok.sh": "#!/bin/sh\n",
	})
	if err := os.Chmod(filepath.Join(dir, "ok.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	problems, warnings := Lint(a)
	var got []string
	for _, p := range problems {
		got = append(got, p.String()+" | "+p.Hint)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"hooks.yaml:2:3: hook pre_tool_execution: not executable: " + filepath.Join(dir, "guard.sh") + " | chmod +x " + filepath.Join(dir, "guard.sh"),
		"hook on_error: " + filepath.Join(dir, "missing.sh") + " does not exist",
		"generator of source #2: not executable: " + filepath.Join(dir, "gen.sh"),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Lint() problems =\n%s\nwant one containing %q", all, want)
		}
	}
	if len(problems) != 3 || !errors.Is(problems[0].Err, ErrNotExecutable) {
		t.Errorf("Lint() = %d problems (first %v), want 3, the first ErrNotExecutable", len(problems), problems[0].Err)
	}
	w := strings.Join(warnings, "\n")
	if len(warnings) != 2 || !strings.Contains(w, `hook on_run_end runs "no-such-notifier-xyz", which is not on PATH`) ||
		!strings.Contains(w, `"no-such-program-xyz" is not on PATH (tools gone)`) {
		t.Errorf("Lint() warnings = %q, want the hook and the tool not on PATH", warnings)
	}
}
