package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// thoughts is a journal of THOUGHTs, one per string, each calling the
// tools its letters name (with the same arguments).
func thoughts(turns ...string) []journal.Event {
	var evs []journal.Event
	for _, t := range turns {
		ev := journal.Event{Type: journal.Thought}
		for _, c := range t {
			ev.ToolCalls = append(ev.ToolCalls, llm.ToolCall{Name: string(c), Arguments: "{}"})
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestLoopPatterns(t *testing.T) {
	warning := journal.Event{Type: journal.SystemMessage, Kind: journal.KindLoopDetection}
	for _, tc := range []struct {
		name   string
		events []journal.Event
		window int
		want   bool
	}{
		{"same call ten times", thoughts("A", "A", "A", "A", "A", "A", "A", "A", "A", "A"), 10, true},
		{"nine is not enough", thoughts("A", "A", "A", "A", "A", "A", "A", "A", "A"), 10, false},
		{"A-B cycling", thoughts("A", "B", "A", "B", "A", "B", "A", "B", "A", "B"), 10, true},
		{"A-B cycling, two calls a turn", thoughts("AB", "AB", "AB", "AB", "AB"), 10, true},
		{"only the last ten count", thoughts("C", "A", "B", "A", "B", "A", "B", "A", "B", "A", "B"), 10, true},
		{"one call differs", thoughts("A", "B", "A", "B", "A", "C", "A", "B", "A", "B"), 10, false},
		{"A-B-C with a window of 10 (3 does not divide it)", thoughts("A", "B", "C", "A", "B", "C", "A", "B", "C", "A"), 10, false},
		{"A-B-C with a window of 9", thoughts("ABC", "ABC", "ABC"), 9, true},
		{"a pattern of 4 is no loop", thoughts("ABCD", "ABCD", "ABCD", "ABCD"), 8, false},
		{"calls before the last warning do not count", append(thoughts("A", "A", "A", "A", "A"), append([]journal.Event{warning}, thoughts("A", "A", "A", "A", "A")...)...), 10, false},
		{"an old warning without a kind counts", append(thoughts("A", "A"), append([]journal.Event{{Type: journal.SystemMessage, Content: "Loop detected: the last 3 turns"}}, thoughts("A", "A")...)...), 3, false},
	} {
		if got := repeats(recentCalls(tc.events, tc.window), tc.window); got != tc.want {
			t.Errorf("%s: loop = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLoopDetectedABAB: a model alternating two calls gets, after ten of
// them, a SYSTEM_MESSAGE of kind loop_detection that its next request
// carries.
func TestLoopDetectedABAB(t *testing.T) {
	a := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"a"}`)}}
	b := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"b"}`)}}
	p := &scriptProvider{turns: []llm.Response{a, b, a, b, a, b, a, b, a, b, {Content: "giving up"}}}
	e, j, _ := newEngine(t, p)
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	events, _ := j.Events()
	var warnings []journal.Event
	for _, ev := range events {
		if ev.Type == journal.SystemMessage {
			warnings = append(warnings, ev)
		}
	}
	if len(warnings) != 1 || warnings[0].Kind != journal.KindLoopDetection || warnings[0].Iteration != 11 ||
		!strings.Contains(warnings[0].Content, "last 10 tool calls follow a repeating pattern") {
		t.Fatalf("warnings = %+v, want one loop_detection before iteration 11", warnings)
	}
	last := p.reqs[len(p.reqs)-1].Messages
	if !strings.Contains(last[len(last)-1].Content, "Loop detected") {
		t.Errorf("the last request ends with %+v, want the warning", last[len(last)-1])
	}
	if n := len(p.reqs); n != 11 {
		t.Errorf("%d model calls, want 11", n)
	}
}

func TestLoopDetectionDisabled(t *testing.T) {
	a := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"a"}`)}}
	turns := []llm.Response{}
	for range 12 {
		turns = append(turns, a)
	}
	p := &scriptProvider{turns: append(turns, llm.Response{Content: "done"})}
	e, j, _ := newEngine(t, p)
	e.LoopWindow = -1
	if out, err := e.Start(context.Background(), nil); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	events, _ := j.Events()
	for _, ev := range events {
		if ev.Type == journal.SystemMessage {
			t.Errorf("warning %q with loop detection off", ev.Content)
		}
	}
}

// TestMaxTurnsAcrossInvocations: max_turns caps the model turns of the
// whole run: a second invocation with a fresh iteration budget stops at
// the cap too, COMPLETED with the model's last text and a TURN_LIMIT
// event (max_iterations still fails the run).
func TestMaxTurnsAcrossInvocations(t *testing.T) {
	a := llm.Response{Content: "working", ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"a"}`)}}
	p := &scriptProvider{turns: []llm.Response{a, a, a, a, a, a}}
	e, j, _ := newEngine(t, p)
	e.MaxTurns, e.MaxIterations = 3, 2
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Error == nil || out.Error.Type != ErrTypeMaxIterations {
		t.Fatalf("first invocation = %+v, %v; want max_iterations after 2 turns", out.Error, err)
	}
	e2 := *e
	e2.Message = "go on"
	out, err = e2.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed || out.Error != nil || out.ResultText != "working" || out.Iterations != 3 {
		t.Fatalf("second invocation = %+v (%+v), %v; want COMPLETED with the last text after turn 3", out, out.Error, err)
	}
	if len(p.reqs) != 3 {
		t.Errorf("%d model calls, want 3", len(p.reqs))
	}
	if ev := lastOfType(t, j, journal.TurnLimit); ev.Kind != journal.KindMaxTurns {
		t.Errorf("TURN_LIMIT kind = %q, want %q", ev.Kind, journal.KindMaxTurns)
	}
}

// TestMaxToolRoundsPerInput: max_tool_rounds_per_input stops the loop
// after that many rounds of tool calls for one input, COMPLETED with the
// model's last text and a TURN_LIMIT event; a new input gets a fresh
// budget.
func TestMaxToolRoundsPerInput(t *testing.T) {
	a := llm.Response{Content: "still looking", ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"a"}`)}}
	b := llm.Response{ToolCalls: []llm.ToolCall{call("", "echo", `{"text":"b"}`)}}
	p := &scriptProvider{turns: []llm.Response{a, b, a, b, {Content: "done"}}}
	e, j, _ := newEngine(t, p)
	e.MaxToolRounds = 2
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed || out.ResultText != "still looking" || out.Iterations != 2 {
		t.Fatalf("Start() = %+v (%+v), %v; want COMPLETED with the last text after 2 rounds", out, out.Error, err)
	}
	ev := lastOfType(t, j, journal.TurnLimit)
	if ev.Kind != journal.KindMaxToolRounds || !strings.Contains(ev.Content, "2 rounds") {
		t.Errorf("TURN_LIMIT = %+v, want kind %s naming 2 rounds", ev, journal.KindMaxToolRounds)
	}
	e2 := *e
	e2.Message = "go on"
	out, err = e2.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed || out.ResultText != "still looking" || len(p.reqs) != 4 {
		t.Fatalf("second input = %+v, %v after %d model calls; want 2 more rounds", out, err, len(p.reqs))
	}
}

// lastOfType is the journal's last event of type typ.
func lastOfType(t *testing.T, j Journal, typ journal.Type) journal.Event {
	t.Helper()
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == typ {
			return events[i]
		}
	}
	t.Fatalf("no %s event in the journal", typ)
	return journal.Event{}
}
