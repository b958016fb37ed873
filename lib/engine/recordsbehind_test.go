package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// recordingTools writes a tool record holding what the call printed, as
// command and plugin tools do.
type recordingTools struct{ echoTools }

func (t *recordingTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	out, err := t.echoTools.Call(ctx, run, id, name, args)
	if err != nil {
		return out, err
	}
	rec := testRecord(id, name)
	rec.Stdout = &out.Observation
	rel, err := WriteToolRecord(run, rec)
	out.RecordPath = rel
	return out, err
}

// testRecord is the record of call id of tool name, started at a fixed
// time so that tests know its path.
func testRecord(id, name string) runs.ToolRecord {
	return runs.ToolRecord{CallID: id, ToolName: name, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// recordCheckHooks checks, when post_tool_execution runs, that the call's
// record is on disk.
type recordCheckHooks struct {
	t      *testing.T
	runDir string
	seen   int
}

func (h *recordCheckHooks) RunHook(ctx context.Context, req HookRequest) (HookDecision, error) {
	if req.Name == agent.PostToolExecution {
		h.seen++
		if _, err := os.Stat(filepath.Join(h.runDir, testRecord("c1", "echo").Path())); err != nil {
			h.t.Errorf("post_tool_execution ran before the call's record was written: %v", err)
		}
	}
	return HookDecision{Action: HookContinue}, nil
}

// TestToolRecordsWrittenBehind: a tool record is written behind the
// engine, with its secrets redacted before it reaches the disk; a
// configured hook runs only once the records are written, and the run
// ends with every record on disk.
func TestToolRecordsWrittenBehind(t *testing.T) {
	const secret = `canary"secret-0123456789`
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("c1", "echo", `{"text":"key=canary\"secret-0123456789"}`)}},
		{Content: "done"},
	}}
	e, _, _ := newEngine(t, p)
	e.Tools = &recordingTools{}
	e.Redact = redact.FromEnv([]string{"QA_TOKEN=" + secret})
	e.Run.Agent = &agent.Agent{Hooks: agent.Hooks{agent.PostToolExecution: {Command: []string{"true"}}}}
	hooks := &recordCheckHooks{t: t, runDir: e.Run.RunDir}
	e.Hooks = hooks
	// The write waits until well after the call returned: the hook would
	// see no record if it did not wait for it.
	hold := make(chan struct{})
	time.AfterFunc(50*time.Millisecond, func() { close(hold) })
	e.Run.Records = &Records{runDir: e.Run.RunDir, redact: e.Redact, log: log.New(io.Discard, "", 0), hold: hold}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if hooks.seen != 1 {
		t.Fatalf("post_tool_execution ran %d times, want 1", hooks.seen)
	}
	data, err := os.ReadFile(filepath.Join(e.Run.RunDir, testRecord("c1", "echo").Path()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "secret-0123456789") || !strings.Contains(string(data), "[REDACTED:QA_TOKEN]") {
		t.Errorf("record = %s, want the secret redacted", data)
	}
}

// TestWriteToolRecordWithoutEngine: without an engine's Records (delta
// mcp serve) the record is on disk when WriteToolRecord returns, and a
// failed write is the caller's error.
func TestWriteToolRecordWithoutEngine(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord("c1", "x")
	rel, err := WriteToolRecord(RunInfo{RunDir: dir}, rec)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := rec.Encode()
	if data, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(data) != string(want) {
		t.Fatalf("record = %q, %v, want %q", data, err, want)
	}
	gone := filepath.Join(dir, "gone")
	if _, err := WriteToolRecord(RunInfo{RunDir: gone}, rec); err == nil || !errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), "removed") {
		t.Fatalf("write into a removed run directory: %v, want an error", err)
	}
}

// TestInvocationRecordBehind: without a pre_llm_request hook the
// invocation record is encoded behind the engine; it holds the request
// sent and the model's own answer, not the engine's changes to it (call
// ids it gave the calls the model left without one), although the engine
// made them before the record was written.
func TestInvocationRecordBehind(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: `{"text":"one"}`}}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	e.Run.Agent = &agent.Agent{}
	hold := make(chan struct{})
	time.AfterFunc(50*time.Millisecond, func() { close(hold) })
	e.Run.Records = &Records{runDir: e.Run.RunDir, log: log.New(io.Discard, "", 0), hold: hold}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	var ref string
	for _, ev := range events {
		if ev.Type == "THOUGHT" && len(ev.ToolCalls) == 1 {
			ref = ev.InvocationRef
			if ev.ToolCalls[0].ID == "" {
				t.Fatalf("the journal's call has no id: %+v", ev.ToolCalls[0])
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(e.Run.RunDir, ref))
	if err != nil {
		t.Fatalf("invocation record %q: %v", ref, err)
	}
	var rec struct {
		Iteration int
		Request   llm.Request
		Response  llm.Response
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Iteration != 1 || len(rec.Request.Messages) == 0 || rec.Request.Messages[len(rec.Request.Messages)-1].Content != "task" {
		t.Errorf("record request = %+v (iteration %d), want the task sent at iteration 1", rec.Request.Messages, rec.Iteration)
	}
	if len(rec.Response.ToolCalls) != 1 || rec.Response.ToolCalls[0].ID != "" || rec.Response.ToolCalls[0].Name != "echo" {
		t.Errorf("record response calls = %+v, want the model's own call, without the engine's id", rec.Response.ToolCalls)
	}
}

// TestRecordsWaitWhileOthersHandOver: a tool host's parallel calls share
// one Records, each waiting for the records of its own call while others
// hand theirs over; that must never panic and every Wait must see the
// records handed over before it.
func TestRecordsWaitWhileOthersHandOver(t *testing.T) {
	dir := t.TempDir()
	r := NewRecords(dir, nil, log.New(io.Discard, "", 0))
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				rel := filepath.Join("io", "t", strings.Repeat("x", g+1)+"_"+strconv.Itoa(i))
				r.behind(rel, func() ([]byte, error) { return []byte("{}"), nil })
				r.Wait()
				if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
					t.Errorf("after Wait: %v", err)
					return
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
}
