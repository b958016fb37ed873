package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"a\x00b", "a^@b"},
		{"\x1b[31mred\x1b[0m", "^[[31mred^[[0m"},
		{"\x1b]0;title\x07", "^[]0;title^G"},
		{"del\x7f", "del^?"},
		{"bad \xff\xfe utf8", "bad \uFFFD utf8"},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"ünïcode ok", "ünïcode ok"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, safe(tt.in)); diff != "" {
			t.Errorf("safe(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestDisplayEscapesToolOutput: neither a plain nor a -v stream carries a
// tool's raw control bytes to the terminal.
func TestDisplayEscapesToolOutput(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var buf bytes.Buffer
		d := newDisplay(&buf, verbose)
		code := 0
		d.event(journal.Event{Type: journal.ActionResult, ToolName: "sh", ExitCode: &code, ObservationContent: "a\x00b\xff\x1b[31mred"})
		d.event(journal.Event{Type: journal.ActionRequest, ToolName: "sh\x1b[2J", ToolArgs: json.RawMessage(`{"cmd":"x"}`)})
		out := buf.Bytes()
		if bytes.ContainsAny(out, "\x00\x1b") || !bytes.Contains(out, []byte("a^@b\uFFFD^[[31mred")) {
			t.Errorf("verbose=%v: stream %q", verbose, out)
		}
	}
}

// TestIterationUpdatesThrottle: the first iteration is written at once,
// the next ones within iterationEvery only in memory (the final metadata
// write carries them).
func TestIterationUpdatesThrottle(t *testing.T) {
	dir := t.TempDir()
	meta := &runs.Metadata{RunID: "r", Status: runs.Running}
	u := &iterationUpdates{runDir: dir, meta: meta}
	for it := 1; it <= 3; it++ {
		if err := u.update(it); err != nil {
			t.Fatal(err)
		}
	}
	got, err := runs.ReadMetadata(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Iterations != 1 || meta.Iterations != 3 {
		t.Errorf("on disk %d, in memory %d; want 1 and 3", got.Iterations, meta.Iterations)
	}
	u.last = u.last.Add(-iterationEvery)
	if err := u.update(4); err != nil {
		t.Fatal(err)
	}
	if got, _ := runs.ReadMetadata(dir); got == nil || got.Iterations != 4 {
		t.Errorf("after %v the update was not written: %+v", iterationEvery, got)
	}
}

// TestDisplayThinkingVerboseOnly: the model's reasoning shows with -v, and
// never otherwise.
func TestDisplayThinkingVerboseOnly(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var buf bytes.Buffer
		d := newDisplay(&buf, verbose)
		d.event(journal.Event{Type: journal.Thought, Content: "answer", Reasoning: []llm.Reasoning{{Type: "thinking", Text: "pondering"}, {Type: "redacted_thinking", Data: "b64"}}})
		out := buf.String()
		if got := strings.Contains(out, "thinking:\n  pondering"); got != verbose || !strings.Contains(out, "answer") || strings.Contains(out, "b64") {
			t.Errorf("verbose=%v: stream %q", verbose, out)
		}
	}
}
