package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/host"
)

// pluginRecord is what a test reads of a plugin call's record.
type pluginRecord struct {
	CallID      string  `json:"call_id"`
	ToolName    string  `json:"tool_name"`
	Plugin      string  `json:"plugin"`
	TimeoutMS   int64   `json:"timeout_ms"`
	StdoutBytes int     `json:"stdout_bytes"`
	Stdout      *string `json:"stdout"`
	StdoutFile  string  `json:"stdout_file"`
}

// callRecorded calls tool and reads its io/tool_executions record.
func callRecorded(t *testing.T, tool string) (engine.ToolOutcome, pluginRecord, string) {
	t.Helper()
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	out, err := tb.Call(context.Background(), engine.RunInfo{RunDir: runDir, WorkDir: "/ws", RunID: "r1"}, "c1", tool, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if out.RecordPath == "" || !strings.HasPrefix(out.RecordPath, runs.ToolExecutionsDir) {
		t.Fatalf("RecordPath = %q, want a record under %s", out.RecordPath, runs.ToolExecutionsDir)
	}
	data, err := os.ReadFile(filepath.Join(runDir, out.RecordPath))
	if err != nil {
		t.Fatal(err)
	}
	var rec pluginRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return out, rec, runDir
}

// TestPluginCallRecord: a plugin tool call gets the io/tool_executions
// record a command tool gets, with its full output inline (the model sees
// it truncated) and the default timeout of command tools.
func TestPluginCallRecord(t *testing.T) {
	out, rec, _ := callRecorded(t, "big")
	if rec.CallID != "c1" || rec.ToolName != "big" || rec.Plugin != "test" || rec.TimeoutMS != engine.DefaultToolTimeout.Milliseconds() || rec.StdoutBytes != 60000 {
		t.Errorf("record = %+v", rec)
	}
	if rec.Stdout == nil || len(*rec.Stdout) != 60000 || rec.StdoutFile != "" {
		t.Errorf("record keeps the output as stdout %v, stdout_file %q; want all 60000 bytes inline", rec.Stdout != nil, rec.StdoutFile)
	}
	if len(out.Observation) >= 60000 {
		t.Errorf("observation is %d characters, want it truncated", len(out.Observation))
	}
}

// TestPluginCallRecordLong: an output over ToolRecordInlineMax goes whole to
// stdout.log beside the record.
func TestPluginCallRecordLong(t *testing.T) {
	_, rec, runDir := callRecorded(t, "huge")
	if rec.Stdout != nil || rec.StdoutFile == "" || rec.StdoutBytes != 300000 {
		t.Fatalf("record = %+v; want stdout_file for 300000 bytes", rec)
	}
	full, err := os.ReadFile(filepath.Join(runDir, rec.StdoutFile))
	if err != nil || len(full) != 300000 {
		t.Errorf("full output: %d bytes, %v; want 300000", len(full), err)
	}
}

// TestPluginCallRecordDir: the host makes the call's record directory
// before the call and passes it: a file the plugin keeps there stays
// beside the record, and a directory left empty is removed after the call.
func TestPluginCallRecordDir(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	run := engine.RunInfo{RunDir: runDir, WorkDir: t.TempDir(), RunID: "r1"}
	for _, tc := range []struct {
		id, args string
		kept     bool
	}{{"c1", `{"keep":true}`, true}, {"c2", `{}`, false}} {
		out, err := tb.Call(context.Background(), run, tc.id, "keep", json.RawMessage(tc.args))
		if err != nil || out.IsError {
			t.Fatalf("Call(keep %s) = %+v, %v", tc.args, out, err)
		}
		want := filepath.Join(runDir, strings.TrimSuffix(out.RecordPath, ".json"))
		if out.Observation != want {
			t.Errorf("the plugin's RecordDir = %q, want %q (beside the record %s)", out.Observation, want, out.RecordPath)
		}
		data, err := os.ReadFile(filepath.Join(want, "whole.txt"))
		if tc.kept && (err != nil || string(data) != "all of it") {
			t.Errorf("kept file = %q, %v; want it beside the record", data, err)
		}
		if _, err := os.Stat(want); !tc.kept && !os.IsNotExist(err) {
			t.Errorf("record directory left empty still exists: %v", err)
		}
	}
}

// TestPluginCallEnv: the host passes the run's variables and the call's
// (what a command tool's environment has on top) with each call.
func TestPluginCallEnv(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := engine.RunInfo{RunDir: t.TempDir(), WorkDir: "/ws", RunID: "r1", AgentHome: "/agent", Iteration: 3}
	out, err := tb.Call(context.Background(), run, "c1", "run_env", json.RawMessage(`{}`))
	if err != nil || out.IsError {
		t.Fatalf("Call(run_env) = %+v, %v", out, err)
	}
	if diff := cmp.Diff(run.CallEnv("c1"), strings.Split(out.Observation, "\n")); diff != "" {
		t.Errorf("the plugin's Env (-want +got):\n%s", diff)
	}
	for _, v := range []string{"DELTA_RUN_ID=r1", "DELTA_RUN_DIR=" + run.RunDir, "DELTA_WORKSPACE=/ws", "DELTA_CALL_ID=c1", "DELTA_ITERATION=3"} {
		if !strings.Contains(out.Observation, v+"\n") && !strings.HasSuffix(out.Observation, v) {
			t.Errorf("the plugin's Env lacks %s:\n%s", v, out.Observation)
		}
	}
}
