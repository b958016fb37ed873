package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: any agent.yaml either loads or yields a *LoadError whose
// problems all name a file; Load never panics.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"name: a\ntools:\n  - {name: t, exec: 'echo ${x}'}\n",
		"tools: [{name: t, shell: 'cat ${f} | wc -l', parameters: [{name: f, inject_as: stdin}]}]",
		"llm: {provider: scripted, temperature: x}\n",
		"lifecycle_hooks: {on_error: {command: [x]}}\n",
		"imports: [agent.yaml]\n", "- a\n- b\n", "name: [", "&a [*a]", "tools: {a: b}", "plugins: [{name: p, config: 3}]",
		"mcp_servers: [{name: m, command: ./s, args: [a], env: {K: '${K}'}, tools: [t], timeout_ms: 5}, {name: h, url: 'http://x', headers: {A: b}}]\n",
		"subagents: {enabled: true, max_depth: 2, agents: [., [x], ../nowhere]}", "subagents: [a]",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "system_prompt.md"), []byte("p"), 0o644)
	os.WriteFile(filepath.Join(dir, "context.yaml"), []byte(DefaultContextYAML), 0o644)
	f.Fuzz(func(t *testing.T, config string) {
		if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := Load(dir)
		if err == nil {
			if a == nil || a.Name == "" {
				t.Fatalf("Load succeeded without an agent name: %+v", a)
			}
			return
		}
		var le *LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 {
			t.Fatalf("Load error %v is not a *LoadError with problems", err)
		}
		for _, p := range le.Problems {
			if p.File == "" || p.Msg == "" {
				t.Fatalf("problem without file or message: %+v", p)
			}
		}
	})
}
