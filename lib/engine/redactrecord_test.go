package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/redact"
)

// TestRedactOutputFiles: a secret is replaced in every output file kept
// beside a call's record, a command's logs and an MCP tool's output.txt
// and result.json alike (a secret holding a quote included, which
// result.json escapes). The record itself is redacted as it is written
// (Records).
func TestRedactOutputFiles(t *testing.T) {
	secret := `s3cret"value-123`
	r := redact.FromEnv([]string{"QA_API_KEY=" + secret})
	runDir := t.TempDir()
	rec := filepath.Join("io", "tool_executions", "T_tool_c1.json")
	files := map[string]string{
		"io/tool_executions/T_tool_c1/output.txt":  "key: " + secret + "\n",
		"io/tool_executions/T_tool_c1/result.json": `{"content":[{"type":"text","text":"key: s3cret\"value-123"}]}`,
		"io/tool_executions/T_tool_c1/stdout.log":  secret,
		"io/tool_executions/T_tool_c1/stderr.log":  secret,
	}
	for name, content := range files {
		p := filepath.Join(runDir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	engine.RedactOutputFiles(r, runDir, rec)
	for name := range files {
		data, err := os.ReadFile(filepath.Join(runDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "s3cret") || !strings.Contains(string(data), "[REDACTED:QA_API_KEY]") {
			t.Errorf("%s = %q, want the secret redacted", name, data)
		}
	}
}
