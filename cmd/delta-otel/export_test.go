package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// t0 is the fixture runs' start; the events are written at t0+offset.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }

// fixtureRun writes a run directory with lines as its journal and status
// in its metadata (RUNNING: held by this test process), and returns it.
func fixtureRun(t *testing.T, id string, status runs.Status, lines ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".delta", id)
	if err := os.MkdirAll(filepath.Join(dir, "io", "invocations"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeStatus(t, dir, id, status)
	appendLines(t, dir, lines...)
	return dir
}

func writeStatus(t *testing.T, dir, id string, status runs.Status) {
	t.Helper()
	m := &runs.Metadata{RunID: id, Status: status, WorkDir: filepath.Dir(filepath.Dir(dir))}
	if status == runs.Running {
		m.SetProcess(runs.Self())
	}
	if err := runs.WriteMetadata(dir, m); err != nil {
		t.Fatal(err)
	}
}

func appendLines(t *testing.T, dir string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, runs.JournalFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// The events of a run of two iterations: a model call with a tool call
// that fails, then the answer.
var (
	evStart   = `{"type":"ENGINE_START","seq":1,"timestamp":"` + at(0) + `","run_id":"R1","work_dir":"/w","config":{"agent_name":"coder","provider":"openai","model":"gpt-5"}}`
	evUser    = `{"type":"USER_MESSAGE","seq":2,"timestamp":"` + at(10) + `","content":"fix it"}`
	evThink1  = `{"type":"THOUGHT","seq":3,"timestamp":"` + at(1010) + `","iteration":1,"content":"look","tool_calls":[{"id":"c1","name":"shell","arguments":"{}"}],"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":64},"model":"gpt-5-2025","response_id":"resp_1","invocation_ref":"io/invocations/1.json"}`
	evReq     = `{"type":"ACTION_REQUEST","seq":4,"timestamp":"` + at(1020) + `","iteration":1,"call_id":"c1","tool_name":"shell","tool_args":{}}`
	evResult  = `{"type":"ACTION_RESULT","seq":5,"timestamp":"` + at(1520) + `","iteration":1,"call_id":"c1","tool_name":"shell","observation_content":"no such file\nmore","exit_code":2,"is_error":true}`
	evThink2  = `{"type":"THOUGHT","seq":6,"timestamp":"` + at(2000) + `","iteration":2,"content":"done","usage":{"input_tokens":150,"output_tokens":5},"model":"gpt-5-2025"}`
	evEnd     = `{"type":"ENGINE_END","seq":7,"timestamp":"` + at(2010) + `","run_id":"R1","status":"COMPLETED","final_iteration":2}`
	allEvents = []string{evStart, evUser, evThink1, evReq, evResult, evThink2, evEnd}
)

// export runs delta-otel with args against the receiver and returns its stdout.
func export(t *testing.T, r *receiver, args ...string) string {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "")
	return runOtel(t, args...)
}

// runOtel runs delta-otel with args in the environment as it is and
// returns its stdout.
func runOtel(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run("delta-otel", &CLI{}, args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("delta-otel %v = exit %d, stderr %s", args, code, errb.String())
	}
	return out.String()
}

func TestExportSpans(t *testing.T) {
	dir := fixtureRun(t, "R1", runs.Completed, allEvents...)
	// The first model call took 400 ms by its record: it began then, not
	// when the user's message was written.
	if err := os.WriteFile(filepath.Join(dir, "io", "invocations", "1.json"), []byte(`{"iteration":1,"timestamp":"x","duration_ms":400,"request":{"big":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newReceiver(t)
	out := export(t, r, "export", dir)
	if want := "R1 " + traceIDOf("R1").String() + "\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	spans := r.received()
	want := []string{"chat gpt-5-2025", "chat gpt-5-2025", "execute_tool shell", "invoke_agent coder", "iteration 1", "iteration 2"}
	if diff := cmp.Diff(want, names(spans)); diff != "" {
		t.Fatalf("span names (-want +got):\n%s", diff)
	}
	agent, it1, tool := find(spans, "invoke_agent coder"), find(spans, "iteration 1"), find(spans, "execute_tool shell")
	var chat1, chat2 *tracepb.Span
	for _, s := range spans {
		if s.Name == "chat gpt-5-2025" && chat1 == nil {
			chat1 = s
		} else if s.Name == "chat gpt-5-2025" {
			chat2 = s
		}
	}
	if attrMap(chat1.Attributes)["gen_ai.usage.input_tokens"] != int64(100) {
		chat1, chat2 = chat2, chat1
	}
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) != traceIDOf("R1").String() {
			t.Errorf("span %s in trace %x, want the run's", s.Name, s.TraceId)
		}
	}
	parents := map[*tracepb.Span]*tracepb.Span{agent: nil, it1: agent, chat1: it1, tool: it1, chat2: find(spans, "iteration 2"), find(spans, "iteration 2"): agent}
	for s, p := range parents {
		var want []byte
		if p != nil {
			want = p.SpanId
		}
		if !bytes.Equal(s.ParentSpanId, want) {
			t.Errorf("span %s has parent %x, want %x", s.Name, s.ParentSpanId, want)
		}
	}
	checkAttrs(t, agent, map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "gen_ai.provider.name": "openai", "gen_ai.system": "openai",
		"gen_ai.request.model": "gpt-5", "gen_ai.conversation.id": "R1", "delta.run.status": "COMPLETED",
		"gen_ai.usage.input_tokens": int64(250), "gen_ai.usage.output_tokens": int64(25), "gen_ai.usage.cache_read.input_tokens": int64(64),
	})
	checkAttrs(t, chat1, map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-5", "gen_ai.response.model": "gpt-5-2025",
		"gen_ai.response.id": "resp_1", "gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
		"gen_ai.usage.cache_read.input_tokens": int64(64), "gen_ai.response.finish_reasons": []string{"tool_calls"},
	})
	checkAttrs(t, tool, map[string]any{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shell", "gen_ai.tool.call.id": "c1", "gen_ai.tool.type": "function",
		"delta.tool.exit_code": int64(2), "error.type": "tool_error",
	})
	if tool.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || tool.Status.GetMessage() != "no such file" {
		t.Errorf("tool status = %v, want an error saying the output's first line", tool.Status)
	}
	if chat1.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("chat span kind = %v, want client", chat1.Kind)
	}
	times := map[string][2]int{"invoke_agent coder": {0, 2010}, "iteration 1": {10, 1520}, "chat 1": {610, 1010}, "execute_tool shell": {1020, 1520}, "iteration 2": {1520, 2000}, "chat 2": {1520, 2000}}
	for name, want := range times {
		s := find(spans, name)
		switch name {
		case "chat 1":
			s = chat1
		case "chat 2":
			s = chat2
		}
		got := [2]int{ms(s.StartTimeUnixNano), ms(s.EndTimeUnixNano)}
		if got != want {
			t.Errorf("span %s from %v ms to %v ms, want %v (the journal's times)", name, got[0], got[1], want)
		}
	}
	if r.resource["service.name"] != "delta" {
		t.Errorf("resource service.name = %v, want delta", r.resource["service.name"])
	}
}

// ms is an OTLP time as milliseconds after t0.
func ms(ns uint64) int {
	return int((time.Duration(ns) - time.Duration(t0.UnixNano())) / time.Millisecond)
}

func checkAttrs(t *testing.T, s *tracepb.Span, want map[string]any) {
	t.Helper()
	got := attrMap(s.Attributes)
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("span %s attribute %s (-want +got):\n%s", s.Name, k, diff)
		}
	}
}

// TestExportTwiceSameTrace: a second export of a run sends the same trace
// and the same spans, so a backend keeps one copy.
func TestExportTwiceSameTrace(t *testing.T) {
	dir := fixtureRun(t, "R1", runs.Completed, allEvents...)
	r1, r2 := newReceiver(t), newReceiver(t)
	export(t, r1, "export", dir)
	export(t, r2, "export", dir)
	ids := func(r *receiver) map[string]string {
		m := map[string]string{}
		for _, s := range r.received() {
			m[hex.EncodeToString(s.TraceId)+"/"+hex.EncodeToString(s.SpanId)] = s.Name
		}
		return m
	}
	first := ids(r1)
	if len(first) != 6 {
		t.Fatalf("first export: %d distinct spans, want 6", len(first))
	}
	if diff := cmp.Diff(first, ids(r2)); diff != "" {
		t.Errorf("second export's ids differ (-first +second):\n%s", diff)
	}
}

// TestExportFailedModelCall: a model call that failed is a chat span with
// the error, and the failed run's span is an error too.
func TestExportFailedModelCall(t *testing.T) {
	dir := fixtureRun(t, "R2", runs.Failed,
		strings.ReplaceAll(evStart, "R1", "R2"),
		evUser,
		`{"type":"ERROR","seq":3,"timestamp":"`+at(500)+`","iteration":1,"error_message":"llm request failed: 500","error_details":{"type":"llm_error"}}`,
		`{"type":"ENGINE_END","seq":4,"timestamp":"`+at(510)+`","run_id":"R2","status":"FAILED","final_iteration":1}`)
	r := newReceiver(t)
	export(t, r, "export", dir)
	spans := r.received()
	chat, agent := find(spans, "chat gpt-5"), find(spans, "invoke_agent coder")
	if chat == nil || agent == nil {
		t.Fatalf("spans = %v, want a chat span and the agent's", names(spans))
	}
	if chat.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attrMap(chat.Attributes)["error.type"] != "llm_error" {
		t.Errorf("chat span status %v attributes %v, want an llm_error", chat.Status, attrMap(chat.Attributes))
	}
	if agent.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("agent span status = %v, want an error for a FAILED run", agent.Status)
	}
	it := find(spans, "iteration 1")
	if len(it.Events) != 1 || it.Events[0].Name != "exception" {
		t.Errorf("iteration events = %v, want one exception", it.Events)
	}
}

// TestExportRunningLeavesOpenSpans: exporting a run that still runs sends
// the spans that are complete and says the others are left out.
func TestExportRunningLeavesOpenSpans(t *testing.T) {
	dir := fixtureRun(t, "R1", runs.Running, evStart, evUser, evThink1, evReq)
	r := newReceiver(t)
	var out, errb bytes.Buffer
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.srv.URL)
	if code := cli.Run("delta-otel", &CLI{}, []string{"export", dir}, cli.Stdio{Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if diff := cmp.Diff([]string{"chat gpt-5-2025"}, names(r.received())); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if !strings.Contains(errb.String(), "still running") {
		t.Errorf("stderr = %q, want a note that the run still runs", errb.String())
	}
}
