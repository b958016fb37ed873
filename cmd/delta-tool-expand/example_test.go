package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/tool"
	"gopkg.in/yaml.v3"
)

const example = "../../examples/tool-syntax"

// TestExampleREADME checks that the README of examples/tool-syntax shows
// the current expansion of its tools.
func TestExampleREADME(t *testing.T) {
	a, err := agent.Load(example)
	if err != nil {
		t.Fatalf("load %s: %v", example, err)
	}
	var out bytes.Buffer
	doc := struct {
		Tools []tool.Tool `yaml:"tools"`
	}{a.Tools}
	if err := writeYAML(&out, doc); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(example, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, out.Bytes()) {
		t.Errorf("examples/tool-syntax/README.md does not show the current expansion; it is:\n%s", out.String())
	}
}

// TestExampleScriptCalls builds every tool call of the example's script and
// runs it in a temp workspace, as the engine would: each must succeed.
func TestExampleScriptCalls(t *testing.T) {
	a, err := agent.Load(example)
	if err != nil {
		t.Fatalf("load %s: %v", example, err)
	}
	data, err := os.ReadFile(a.LLM.Script)
	if err != nil {
		t.Fatal(err)
	}
	var script struct {
		Turns []struct {
			ToolCalls []struct {
				Name string         `yaml:"name"`
				Args map[string]any `yaml:"args"`
			} `yaml:"tool_calls"`
		} `yaml:"turns"`
	}
	if err := yaml.Unmarshal(data, &script); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ran := 0
	for _, turn := range script.Turns {
		for _, c := range turn.ToolCalls {
			i := slices.IndexFunc(a.Tools, func(tl tool.Tool) bool { return tl.Name == c.Name })
			if i < 0 {
				t.Fatalf("script calls unknown tool %q", c.Name)
			}
			args, _ := json.Marshal(c.Args)
			call, err := tool.Build(a.Tools[i], args)
			if err != nil {
				t.Fatalf("Build %s %s: %v", c.Name, args, err)
			}
			cmd := exec.Command(call.Argv[0], call.Argv[1:]...)
			cmd.Dir = work
			if call.Stdin != nil {
				cmd.Stdin = strings.NewReader(*call.Stdin)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s %q: %v\n%s", c.Name, call.Argv, err, out)
			}
			ran++
		}
	}
	if ran < 7 {
		t.Errorf("script made %d tool calls, want every tool used", ran)
	}
	notes, err := os.ReadFile(filepath.Join(work, "notes.txt"))
	if err != nil || !strings.Contains(string(notes), "Delta keeps all agent state in files.") {
		t.Errorf("notes.txt = %q, %v", notes, err)
	}
}
