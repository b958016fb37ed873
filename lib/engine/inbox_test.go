package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// sendingTools is echoTools whose calls first run send (a message sent
// while a tool runs).
type sendingTools struct {
	echoTools
	send func(run RunInfo)
}

func (t *sendingTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	if t.send != nil {
		t.send(run)
		t.send = nil
	}
	return t.echoTools.Call(ctx, run, id, name, args)
}

func sent(t *testing.T, content string, followUp bool) func(RunInfo) {
	return func(run RunInfo) {
		if _, err := runs.Send(run.RunDir, content, followUp); err != nil {
			t.Error(err)
		}
	}
}

func userMessages(t *testing.T, j Journal) []journal.Event {
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	var out []journal.Event
	for _, ev := range events {
		if ev.Type == journal.UserMessage {
			out = append(out, ev)
		}
	}
	return out
}

func requestHas(req llm.Request, text string) bool {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser && m.Content == text {
			return true
		}
	}
	return false
}

func inboxEmpty(t *testing.T, runDir string) {
	t.Helper()
	if msgs, err := runs.Inbox(runDir); err != nil || len(msgs) != 0 {
		t.Errorf("inbox after delivery: %v, %v", msgs, err)
	}
}

// TestSteeringLandsBeforeNextCall: a message sent while a tool runs is
// journaled (USER_MESSAGE, source steer) before the next model call,
// which sees it.
func TestSteeringLandsBeforeNextCall(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"x"}`)}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	e.Tools = &sendingTools{send: sent(t, "use the other file", false)}
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if requestHas(p.reqs[0], "use the other file") || !requestHas(p.reqs[1], "use the other file") {
		t.Error("the steering message is not in the model call after the tool (and only there)")
	}
	users := userMessages(t, j)
	if len(users) != 2 || users[1].Source != runs.SourceSteer || users[1].MessageID == "" || users[1].Content != "use the other file" {
		t.Errorf("USER_MESSAGEs = %+v", users)
	}
	inboxEmpty(t, e.Run.RunDir)
}

// TestFollowUpStartsNewCycle: a follow-up waits for the text-only answer,
// which then does not complete the run: the follow-up starts a new cycle.
func TestFollowUpStartsNewCycle(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("a", "echo", `{"text":"x"}`)}},
		{Content: "first answer"},
		{Content: "second answer"},
	}}
	e, j, _ := newEngine(t, p)
	e.Tools = &sendingTools{send: sent(t, "now translate it", true)}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed || out.ResultText != "second answer" {
		t.Fatalf("Start() = %+v, %v; want COMPLETED with the second answer", out, err)
	}
	if requestHas(p.reqs[1], "now translate it") || !requestHas(p.reqs[2], "now translate it") {
		t.Error("the follow-up is not in the call after the first answer (and only there)")
	}
	users := userMessages(t, j)
	if len(users) != 2 || users[1].Source != runs.SourceFollowUp {
		t.Errorf("USER_MESSAGEs = %+v", users)
	}
	inboxEmpty(t, e.Run.RunDir)
}

// TestMessageNeverJournaledTwice: a message the journal holds already
// (the engine stopped after journaling it, before removing its file) is
// removed, not journaled again; an unreadable one stops the run with its
// name.
func TestMessageNeverJournaledTwice(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{{Content: "done"}}}
	e, j, _ := newEngine(t, p)
	m, err := runs.Send(e.Run.RunDir, "once", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&journal.Event{Type: journal.UserMessage, Content: "once", Source: runs.SourceSteer, MessageID: m.ID}); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	n := 0
	for _, ev := range userMessages(t, j) {
		if ev.MessageID == m.ID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("message journaled %d times, want once", n)
	}
	inboxEmpty(t, e.Run.RunDir)

	bad := filepath.Join(e.Run.RunDir, runs.InboxDir, "00000000000000000001-bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2 := *e
	e2.Message = "again"
	if _, err := e2.Start(context.Background(), nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("an unreadable message: err = %v, want one naming %s", err, bad)
	}
}
