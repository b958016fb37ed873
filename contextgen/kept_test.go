package contextgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// crashCheckProvider, at every model call, rebuilds the context the way a
// run continued after a crash would (a fresh builder reading the journal
// file) and compares it, as JSON bytes, with what the engine built from the
// events its journal keeps in memory.
type crashCheckProvider struct {
	t     *testing.T
	run   engine.RunInfo // without Events: read from disk
	turns []llm.Response
	calls int
}

func (p *crashCheckProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.t.Helper()
	fromDisk, err := New().Build(ctx, p.run)
	if err != nil {
		p.t.Fatal(err)
	}
	got, _ := json.Marshal(req.Messages)
	want, _ := json.Marshal(fromDisk)
	if !bytes.Equal(got, want) {
		p.t.Errorf("model call %d: context from kept events differs from the context read from disk:\n%s", p.calls+1, cmp.Diff(string(want), string(got)))
	}
	resp := p.turns[p.calls]
	p.calls++
	return resp, nil
}

type noteTools struct{}

func (noteTools) Specs() []llm.ToolSpec {
	return []llm.ToolSpec{{Name: "note", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (noteTools) Has(name string) bool { return name == "note" }
func (noteTools) Call(_ context.Context, _ engine.RunInfo, id, _ string, args json.RawMessage) (engine.ToolOutcome, error) {
	return engine.ToolOutcome{Observation: "noted " + id + " <&> " + string(args)}, nil
}
func (noteTools) Close() error { return nil }

// TestContextFromKeptEventsIsCrashIdentical runs the engine over the real
// contextgen and checks, at every iteration, that the context built from
// the journal the engine keeps in memory is byte-identical to the one a
// run continued after a crash builds from the file, including after
// someone else edited the journal.
func TestContextFromKeptEventsIsCrashIdentical(t *testing.T) {
	run := testRun(t, nil,
		agent.ContextSource{Type: agent.SourceFile, ID: "system_prompt", Path: "${AGENT_HOME}/system_prompt.md"},
		agent.ContextSource{Type: agent.SourceJournal, ID: "conversation", MaxIterations: 4},
	)
	writeFile(t, filepath.Join(run.AgentHome, "system_prompt.md"), "You are helpful.")
	if err := os.Remove(run.JournalPath); err != nil {
		t.Fatal(err)
	}
	var turns []llm.Response
	for i := 1; i <= 6; i++ {
		turns = append(turns, llm.Response{Content: fmt.Sprintf("step %d", i), ToolCalls: []llm.ToolCall{
			{ID: fmt.Sprint("a", i), Name: "note", Arguments: fmt.Sprintf(`{ "n" : %d, "s": "\u00e9\xff" }`, i)},
			{Name: "note", Arguments: "not json"},
		}, Usage: llm.Usage{InputTokens: 5, OutputTokens: 1}})
	}
	turns = append(turns, llm.Response{Content: "done"})
	p := &crashCheckProvider{t: t, run: run, turns: turns}
	j, err := engine.OpenFileJournal(run.JournalPath)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	e := &engine.Engine{Run: run, Journal: j, Provider: p, Context: New(), Tools: noteTools{}, Message: "go",
		OnIteration: func(it int) {
			if it == 4 { // someone else edits the journal mid-run
				editOutside(t, run.JournalPath, `"content":"go"`, `"content":"go on"`)
			}
		}}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	if p.calls != len(turns) {
		t.Fatalf("%d model calls, want %d", p.calls, len(turns))
	}
	kept, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	disk, err := journal.ReadFile(run.JournalPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(disk, kept); diff != "" {
		t.Errorf("kept events differ from the file (-file +kept):\n%s", diff)
	}
}

// editOutside replaces old by new in the file at path, in place.
func editOutside(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(old), []byte(new), 1)
	if bytes.Equal(edited, data) {
		t.Fatalf("%s has no %s", path, old)
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
}
