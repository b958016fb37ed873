package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads examples/tool-syntax (7 tools, two imports).
func BenchmarkLoad(b *testing.B) {
	dir, err := filepath.Abs("../../examples/tool-syntax")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
