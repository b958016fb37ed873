package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

// tenToolAgent writes an agent with ten tools of every form (exec and shell,
// arguments, options, stdin, defaults) and returns its directory.
func tenToolAgent(b *testing.B) string {
	b.Helper()
	var y strings.Builder
	y.WriteString("name: ten\ntools:\n")
	for i := range 5 {
		fmt.Fprintf(&y, "  - name: grep%d\n    description: Search files for a pattern.\n    exec: \"grep -rn ${pattern} ${path}\"\n", i)
		fmt.Fprintf(&y, "  - name: note%d\n    description: Append a note.\n    shell: \"printf '%%s\\\\n' ${text} >> ${file}\"\n", i)
	}
	dir := b.TempDir()
	for name, body := range map[string]string{
		"agent.yaml":       y.String(),
		"system_prompt.md": "You are a test agent.\n",
		"context.yaml":     "sources: [{type: journal}]\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkExpand10Tools runs the real delta-tool-expand on a ten-tool
// agent, as a user or a script does: process start-up, loading the agent
// and printing the expanded YAML.
func BenchmarkExpand10Tools(b *testing.B) {
	bin := clitest.ReleaseBinary(b, "./cmd/delta-tool-expand")
	dir := tenToolAgent(b)
	out, err := exec.Command(bin, dir).CombinedOutput()
	if err != nil || strings.Count(string(out), "\n  - name: ") != 10 {
		b.Fatalf("delta-tool-expand %s: %v\n%s", dir, err, out)
	}
	for b.Loop() {
		if err := exec.Command(bin, dir).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVersion is delta-tool-expand's bare start-up (--version).
func BenchmarkVersion(b *testing.B) {
	bin := clitest.ReleaseBinary(b, "./cmd/delta-tool-expand")
	for b.Loop() {
		if err := exec.Command(bin, "--version").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
