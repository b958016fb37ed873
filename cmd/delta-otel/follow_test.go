package main

import (
	"bytes"
	"testing"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// TestFollowExportsSpansAsTheyComplete: --follow sends each span once its
// closing event is written, including spans appended after it started,
// and stops when the run does.
func TestFollowExportsSpansAsTheyComplete(t *testing.T) {
	dir := fixtureRun(t, "R1", runs.Running, evStart, evUser, evThink1, evReq)
	r := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.srv.URL)
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- cli.Run("delta-otel", &CLI{}, []string{"export", "--follow", dir}, cli.Stdio{Out: &out, Err: &errb})
	}()
	r.waitFor(t, "chat gpt-5-2025")
	if s := find(r.received(), "execute_tool shell"); s != nil {
		t.Fatalf("the tool span arrived before its result was written")
	}
	appendLines(t, dir, evResult)
	r.waitFor(t, "execute_tool shell")
	if s := find(r.received(), "iteration 1"); s != nil {
		t.Fatalf("iteration 1 arrived before iteration 2 began")
	}
	appendLines(t, dir, evThink2, evEnd)
	writeStatus(t, dir, "R1", runs.Completed)
	if code := <-done; code != 0 {
		t.Fatalf("follow = exit %d: %s", code, errb.String())
	}
	want := []string{"chat gpt-5-2025", "chat gpt-5-2025", "execute_tool shell", "invoke_agent coder", "iteration 1", "iteration 2"}
	if got := names(r.received()); len(got) != len(want) {
		t.Fatalf("spans = %v, want %v", got, want)
	}
	if out.String() != "R1 "+traceIDOf("R1").String()+"\n" {
		t.Errorf("stdout = %q", out.String())
	}
}
