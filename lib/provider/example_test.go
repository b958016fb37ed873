package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

// A scripted provider replays a file turn by turn, offline; the turn a run
// is at selects the answer.
func ExampleNewScripted() {
	dir, _ := os.MkdirTemp("", "script")
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "turns.yaml")
	os.WriteFile(script, []byte(`turns:
  - tool_calls:
      - name: write_file
        args: {path: hello.txt, content: "Hello, world"}
  - content: "Done: hello.txt written."
`), 0o644)

	p, err := provider.New(agent.LLMConfig{Provider: "scripted", Script: script}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for turn := range 3 {
		r, err := p.Complete(context.Background(), llm.Request{Turn: turn})
		if err != nil {
			fmt.Println(filepath.Base(script), "error:", err != nil)
			continue
		}
		fmt.Println(r.FinishReason, r.Content, r.ToolCalls)
	}
	// Output:
	// tool_calls  [{call_0_0 write_file {"content":"Hello, world","path":"hello.txt"}}]
	// stop Done: hello.txt written. []
	// turns.yaml error: true
}

// LoadEnv merges .env files over the process environment: the workspace's
// file wins over the agent's, which wins over the project root's.
func ExampleLoadEnv() {
	root, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(root)
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".env"), []byte("DELTA_BASE_URL=http://localhost:11434/v1\nDELTA_API_KEY=sk-project\n"), 0o644)
	work := filepath.Join(root, "W001")
	os.Mkdir(work, 0o755)
	os.WriteFile(filepath.Join(work, ".env"), []byte("DELTA_API_KEY=sk-workspace\n"), 0o644)

	env, err := provider.LoadEnv(work, filepath.Join(root, "agent"), []string{"DELTA_API_KEY=sk-process"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(env["DELTA_API_KEY"], env["DELTA_BASE_URL"])
	// Output: sk-workspace http://localhost:11434/v1
}
