package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/plugins/host"
)

// TestPluginCallRecord: a plugin tool call gets the io/tool_executions
// record a command tool gets, with its full output beside it (the model
// sees it truncated) and the default timeout of command tools.
func TestPluginCallRecord(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	out, err := tb.Call(context.Background(), engine.RunInfo{RunDir: runDir, WorkDir: "/ws", RunID: "r1"}, "c1", "big", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if out.RecordPath == "" || !strings.HasPrefix(out.RecordPath, engine.ToolExecutionsDir) {
		t.Fatalf("RecordPath = %q, want a record under %s", out.RecordPath, engine.ToolExecutionsDir)
	}
	data, err := os.ReadFile(filepath.Join(runDir, out.RecordPath))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		CallID      string `json:"call_id"`
		ToolName    string `json:"tool_name"`
		Plugin      string `json:"plugin"`
		TimeoutMS   int64  `json:"timeout_ms"`
		OutputBytes int    `json:"output_bytes"`
		OutputFile  string `json:"output_file"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.CallID != "c1" || rec.ToolName != "big" || rec.Plugin != "test" || rec.TimeoutMS != engine.DefaultToolTimeout.Milliseconds() || rec.OutputBytes != 60000 {
		t.Errorf("record = %+v", rec)
	}
	full, err := os.ReadFile(filepath.Join(runDir, rec.OutputFile))
	if err != nil || len(full) != 60000 {
		t.Errorf("full output: %d bytes, %v; want 60000", len(full), err)
	}
	if len(out.Observation) >= 60000 {
		t.Errorf("observation is %d characters, want it truncated", len(out.Observation))
	}
}
