package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadYAMLFile checks another format's file with agent.yaml's messages:
// positions, did-you-mean, every problem at once.
func TestReadYAMLFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wf.yaml")
	if err := os.WriteFile(path, []byte("nmae: x\nagents: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	y, root := ReadYAMLFile(path)
	if root == nil {
		t.Fatalf("ReadYAMLFile: %v", y.Err())
	}
	fs := y.Fields(root, "the workflow file", []string{"name", "agents"})
	if got := y.Str(fs["agents"], "agents"); got != "" {
		t.Errorf("Str of a list = %q, want \"\" (and a problem)", got)
	}
	err := y.Err()
	var le *LoadError
	if !errors.As(err, &le) || len(le.Problems) != 2 {
		t.Fatalf("Err = %v, want a *LoadError with 2 problems", err)
	}
	if !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrInvalid) {
		t.Errorf("Err does not match ErrUnknownKey and ErrInvalid: %v", err)
	}
	for _, want := range []string{`wf.yaml:1:1: unknown key "nmae" in the workflow file (did you mean "name"?)`, "wf.yaml:2:9: agents must be a string"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Err = %v, want it to contain %q", err, want)
		}
	}
}

func TestReadYAMLFileSyntax(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wf.yaml")
	if err := os.WriteFile(path, []byte("a: 1\n\tb: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	y, root := ReadYAMLFile(path)
	if root != nil {
		t.Fatal("a tab-indented file parsed")
	}
	var le *LoadError
	if err := y.Err(); !errors.As(err, &le) || !strings.Contains(err.Error(), "invalid YAML") || len(le.Hints()) == 0 {
		t.Errorf("Err = %v, want invalid YAML with a hint", err)
	}
}
