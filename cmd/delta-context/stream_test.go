package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// TestStreamedContextIsBuilt holds what delta-context prints (the journal
// read event by event, the conversation built as it goes, the parts
// printed in turn) to the bytes of the Builder's context from every event
// read at once, joined and encoded by encoding/json: the way it printed
// before. The run has user messages, notices, tool calls and an
// unanswered call at the end.
func TestStreamedContextIsBuilt(t *testing.T) {
	ws := bigRun(t, 40)
	runDir := filepath.Join(ws, ".delta", "big")
	jpath := filepath.Join(runDir, "journal.jsonl")
	w, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []journal.Event{
		{Type: journal.UserMessage, Content: "steer: <stop> \u2028 now"},
		{Type: journal.Thought, Iteration: 41, Content: "last", ToolCalls: []llm.ToolCall{{ID: "c41", Name: "ask_human", Arguments: `{}`}}},
	} {
		if _, err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A torn last line is ignored by both.
	f, err := os.OpenFile(jpath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"THOU`)
	f.Close()

	var out, errOut bytes.Buffer
	if code := cli.Run("delta-context", &CLI{}, []string{"-w", ws}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("delta-context exited %d: %s", code, errOut.String())
	}

	events, err := journal.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.Load(events[0].AgentHome)
	if err != nil {
		t.Fatal(err)
	}
	run := engine.RunInfo{RunID: "big", RunDir: runDir, JournalPath: jpath, AgentHome: a.Home, WorkDir: ws, Agent: a,
		Events: func() ([]journal.Event, error) { return events, nil }}
	msgs, err := contextgen.New().Build(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := printJSON(&want, msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 80 || out.String() != want.String() {
		t.Fatalf("delta-context printed %d bytes:\n%s\nthe Builder's %d messages encode to %d bytes; first difference at byte %d",
			out.Len(), out.String()[max(0, out.Len()-300):], len(msgs), want.Len(), firstDiff(out.Bytes(), want.Bytes()))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
