package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
