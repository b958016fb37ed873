package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/tool"
)

func mustTool(t *testing.T, def tool.Definition) tool.Tool {
	t.Helper()
	tl, err := tool.Expand(def)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestCommandToolsOutcomes(t *testing.T) {
	a := &agent.Agent{Tools: []tool.Tool{
		mustTool(t, tool.Definition{Name: "say", Exec: "echo ${word}"}),
		mustTool(t, tool.Definition{Name: "fail", Shell: "echo out; echo err >&2; exit 3"}),
		mustTool(t, tool.Definition{Name: "missing", Exec: "no-such-program-delta"}),
		mustTool(t, tool.Definition{Name: "slow", Exec: "sleep 30", TimeoutMS: 200}),
		mustTool(t, tool.Definition{Name: "secret", Shell: "echo \"[$MY_API_KEY]\""}),
	}}
	box := NewCommandTools(a, []string{"PATH=" + os.Getenv("PATH"), "MY_API_KEY=hidden"})
	dir := t.TempDir()
	run := RunInfo{RunDir: dir, WorkDir: dir}
	for _, tc := range []struct {
		name, args string
		isErr      bool
		code       int
		obs        string
	}{
		{"say", `{"word":"hi"}`, false, 0, "hi\n"},
		{"say", `{}`, true, -1, "error: bad arguments for say"},
		{"fail", `{}`, true, 3, "out\n[stderr]\nerr\n[exit code: 3]"},
		{"missing", `{}`, true, 127, "error: could not start missing"},
		{"slow", `{}`, true, -1, "timed out after 200ms"},
		{"secret", `{}`, false, 0, "[]\n"},
		{"say", `{"word":"` + strings.Repeat("w", 200000) + `"}`, true, -1, `error: say: parameter "word" is 200000 bytes, and one command-line argument may hold at most 131071`},
	} {
		out, err := box.Call(context.Background(), run, "c1", tc.name, json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("Call(%s, %s): %v", tc.name, tc.args, err)
		}
		if out.IsError != tc.isErr || (tc.code != -1 && out.ExitCode != tc.code) || !strings.Contains(out.Observation, tc.obs) {
			t.Errorf("Call(%s, %s) = %+v, want is_error %v, exit %d, observation containing %q", tc.name, tc.args, out, tc.isErr, tc.code, tc.obs)
		}
		if out.RecordPath != "" {
			if _, err := os.Stat(filepath.Join(dir, out.RecordPath)); err != nil {
				t.Errorf("record %s: %v", out.RecordPath, err)
			}
		}
	}
}

func TestMergeFirstWins(t *testing.T) {
	a := &agent.Agent{Tools: []tool.Tool{mustTool(t, tool.Definition{Name: "echo", Exec: "echo local"})}}
	m := Merge(NewCommandTools(a, os.Environ()), &echoTools{})
	specs := m.Specs()
	if len(specs) != 1 || specs[0].Name != "echo" {
		t.Fatalf("Specs() = %+v", specs)
	}
	dir := t.TempDir()
	out, err := m.Call(context.Background(), RunInfo{RunDir: dir, WorkDir: dir}, "c", "echo", json.RawMessage(`{}`))
	if err != nil || out.Observation != "local\n" {
		t.Errorf("Call = %+v, %v; want the local tool", out, err)
	}
}
