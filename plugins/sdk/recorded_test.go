package sdk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecorded: the Data of the run's earlier successful calls to the
// named tools, oldest first, from the journal and the records it points
// to; nothing outside a run.
func TestRecorded(t *testing.T) {
	run := t.TempDir()
	files := map[string]string{
		"journal.jsonl": `{"type":"ACTION_RESULT","seq":1,"timestamp":"2026-01-01T00:00:00Z","call_id":"c1","tool_name":"read_file","execution_ref":"io/tool_executions/a.json"}
{"type":"ACTION_RESULT","seq":2,"timestamp":"2026-01-01T00:00:01Z","call_id":"c2","tool_name":"shell","execution_ref":"io/tool_executions/b.json"}
{"type":"ACTION_RESULT","seq":3,"timestamp":"2026-01-01T00:00:02Z","call_id":"c3","tool_name":"read_file","is_error":true,"execution_ref":"io/tool_executions/c.json"}
{"type":"ACTION_RESULT","seq":4,"timestamp":"2026-01-01T00:00:03Z","call_id":"c4","tool_name":"edit_file","execution_ref":"io/tool_executions/d.json"}
{"type":"ACTION_RESULT","seq":5,"timestamp":"2026-01-01T00:00:04Z","call_id":"c5","tool_name":"read_file","execution_ref":"io/tool_executions/gone.json"}
`,
		"io/tool_executions/a.json": `{"call_id":"c1","tool_name":"read_file","data":{"n":1}}`,
		"io/tool_executions/b.json": `{"call_id":"c2","tool_name":"shell","data":{"n":2}}`,
		"io/tool_executions/c.json": `{"call_id":"c3","tool_name":"read_file","data":{"n":3}}`,
		"io/tool_executions/d.json": `{"call_id":"c4","tool_name":"edit_file","data":{"n":4}}`,
	}
	for name, content := range files {
		p := filepath.Join(run, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	req := CallRequest{Env: []string{"DELTA_RUN_DIR=" + run}}
	got, err := req.Recorded("read_file", "edit_file")
	if err != nil {
		t.Fatal(err)
	}
	want := []Recorded{{Tool: "read_file", CallID: "c1", Data: []byte(`{"n":1}`)}, {Tool: "edit_file", CallID: "c4", Data: []byte(`{"n":4}`)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Recorded() (-want +got):\n%s", diff)
	}
	if got, err := (CallRequest{}).Recorded("read_file"); err != nil || got != nil {
		t.Errorf("Recorded() outside a run = %v, %v; want nothing", got, err)
	}
}
