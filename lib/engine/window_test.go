package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

func kindCount(t *testing.T, j Journal, kind string) int {
	t.Helper()
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range events {
		if ev.Type == journal.SystemMessage && ev.Kind == kind {
			n++
		}
	}
	return n
}

// TestContextWindowWarning: past 80% of the window a SYSTEM_MESSAGE of
// kind context_window is journaled, once per invocation, and the next
// request carries it.
func TestContextWindowWarning(t *testing.T) {
	// The first request (with ask_human's description) is about 130
	// tokens, each turn adds about 200.
	long := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 400)))}}
	p := &scriptProvider{turns: []llm.Response{long, long, long, {Content: "done"}, {Content: "again"}}}
	e, j, _ := newEngine(t, p)
	e.ContextWindow = 300
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if n := kindCount(t, j, journal.KindContextWindow); n != 1 {
		t.Fatalf("%d context_window warnings, want 1", n)
	}
	events, _ := j.Events()
	for _, ev := range events {
		if ev.Kind == journal.KindContextWindow && (ev.Iteration != 2 || !strings.Contains(ev.Content, "of context window (about ") || !strings.Contains(ev.Content, "of 300 tokens")) {
			t.Errorf("warning = %+v, want it at iteration 2 with the figures", ev)
		}
	}
	carried := false
	for _, m := range p.reqs[2].Messages {
		carried = carried || strings.HasPrefix(m.Content, "Context usage at ~111% of context window")
	}
	if !carried {
		t.Errorf("request 3 does not carry the warning: %+v", p.reqs[2].Messages)
	}

	e2 := *e
	e2.Message = "more"
	if out, err := e2.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("continue = %+v, %v", out, err)
	}
	if n := kindCount(t, j, journal.KindContextWindow); n != 2 {
		t.Errorf("%d context_window warnings after a second invocation, want 2", n)
	}
}

func TestContextWindowUnknownNoWarning(t *testing.T) {
	long := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 1000)))}}
	p := &scriptProvider{turns: []llm.Response{long, {Content: "done"}}}
	e, j, _ := newEngine(t, p)
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if n := kindCount(t, j, journal.KindContextWindow); n != 0 {
		t.Errorf("%d warnings without a known window", n)
	}
}

// TestContextOverflow: a provider's refusal of a too long request fails
// the run with the error type context_overflow and a hint.
func TestContextOverflow(t *testing.T) {
	p := &scriptProvider{fail: map[int]error{0: fmt.Errorf("openai: HTTP 400: %w", llm.ErrContextOverflow)}}
	e, _, _ := newEngine(t, p)
	e.ContextWindow = 128000
	out, err := e.Start(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runs.Failed || out.Error == nil || out.Error.Type != ErrTypeContextOverflow ||
		!strings.Contains(out.Error.Details, "fold older turns") || !strings.Contains(out.Error.Details, "context window 128000") {
		t.Fatalf("Start() = %+v, want FAILED context_overflow with a hint", out.Error)
	}
}
