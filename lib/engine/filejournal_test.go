package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

// syncWatch wraps a FileJournal and records which events were durable when
// the engine acted: the model was called or a tool ran.
type syncWatch struct {
	*FileJournal
	appended, synced int64 // seq of the last event appended, synced
}

func (w *syncWatch) Append(ev *journal.Event) error {
	err := w.FileJournal.Append(ev)
	w.appended = ev.Seq
	return err
}

func (w *syncWatch) Sync() error {
	err := w.FileJournal.Sync()
	if err == nil {
		w.synced = w.appended
	}
	return err
}

// checkDurable fails the test when an event is not yet durable.
func (w *syncWatch) checkDurable(t *testing.T, what string) {
	t.Helper()
	if w.synced != w.appended {
		t.Errorf("%s: events up to seq %d appended, only up to %d synced", what, w.appended, w.synced)
	}
}

// watchedProvider and watchedTools check durability before they act.
type watchedProvider struct {
	t *testing.T
	w *syncWatch
	scriptProvider
}

func (p *watchedProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.w.checkDurable(p.t, fmt.Sprintf("model call %d", req.Turn+1))
	return p.scriptProvider.Complete(ctx, req)
}

type watchedTools struct {
	t *testing.T
	w *syncWatch
	echoTools
}

func (tt *watchedTools) Call(ctx context.Context, run RunInfo, id, name string, args json.RawMessage) (ToolOutcome, error) {
	tt.w.checkDurable(tt.t, "tool call "+id)
	return tt.echoTools.Call(ctx, run, id, name, args)
}

// TestAtMostTwoSyncsPerIteration runs ten iterations of one tool call each
// and checks the durability rule (every event is synced before the model
// reads it or a tool runs, and when the run ends) at two fsyncs per
// iteration.
func TestAtMostTwoSyncsPerIteration(t *testing.T) {
	const iterations = 10
	var turns []llm.Response
	for i := 1; i < iterations; i++ {
		turns = append(turns, llm.Response{ToolCalls: []llm.ToolCall{call(fmt.Sprint("c", i), "echo", fmt.Sprintf(`{"text":"%d"}`, i))}})
	}
	turns = append(turns, llm.Response{Content: "done"})
	e, j, _ := newEngine(t, nil)
	w := &syncWatch{FileJournal: j}
	e.Journal = w
	e.Context = journalContext{w}
	e.Provider = &watchedProvider{t: t, w: w, scriptProvider: scriptProvider{turns: turns}}
	e.Tools = &watchedTools{t: t, w: w}
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed || out.Iterations != iterations {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	w.checkDurable(t, "end of run")
	if got := j.Syncs(); got > 2*iterations {
		t.Errorf("%d fsyncs for %d iterations, want at most %d", got, iterations, 2*iterations)
	}
}

// TestKeptEventsMatchDisk checks that what the journal keeps in memory is
// exactly what reading the file back yields, including arguments the
// encoder rewrites (spacing, invalid UTF-8), and that a change made by
// someone else is picked up.
func TestKeptEventsMatchDisk(t *testing.T) {
	p := &scriptProvider{turns: []llm.Response{
		{Content: "first <b>&</b>", ToolCalls: []llm.ToolCall{call("a", "echo", `{ "text" : "spaced" }`)}, Usage: llm.Usage{InputTokens: 3, OutputTokens: 1}},
		{ToolCalls: []llm.ToolCall{call("b", "echo", "{\"text\":\"bad \xff utf8\"}"), call("c", "missing", `{}`)}},
		{Content: "done"},
	}}
	e, j, _ := newEngine(t, p)
	if _, err := j.Events(); err != nil { // start keeping from the first event
		t.Fatal(err)
	}
	if out, err := e.Start(context.Background(), json.RawMessage(`{ "model" : "m" }`)); err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v", out, err)
	}
	path := e.Run.JournalPath
	assertKeptMatchesDisk(t, j, path)

	// Someone else appends a line (with the next seq): the kept events are
	// stale and the file is read again.
	before, err := journal.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, `{"type":"USER_MESSAGE","seq":%d,"timestamp":"2026-01-02T03:04:05Z","content":"from outside"}`+"\n", len(before)+1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	events := assertKeptMatchesDisk(t, j, path)
	if last := events[len(events)-1]; last.Content != "from outside" {
		t.Errorf("last event after an outside append = %+v, want the appended one", last)
	}
}

func assertKeptMatchesDisk(t *testing.T, j *FileJournal, path string) []journal.Event {
	t.Helper()
	kept, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	disk, err := journal.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(disk, kept); diff != "" {
		t.Errorf("kept events differ from the file (-file +kept):\n%s", diff)
	}
	return kept
}

// TestFileJournalGone: a journal replaced under the engine (another
// inode, even at the same size) or removed is an error, ErrJournalGone:
// the engine must not go on appending to a file no one reads.
func TestFileJournalGone(t *testing.T) {
	for _, how := range []string{"replaced", "removed", "run directory removed"} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "journal.jsonl")
		j, err := OpenFileJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if err := j.Append(&journal.Event{Type: journal.UserMessage, Content: "aaaa"}); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Events(); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "replaced":
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			replaced := []byte(string(data[:len(data)-7]) + `bbbb"}` + "\n")
			if err := os.WriteFile(path+".new", replaced, 0o644); err != nil {
				t.Fatal(err)
			}
			err = os.Rename(path+".new", path)
		case "removed":
			err = os.Remove(path)
		default:
			err = os.RemoveAll(dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Events(); !errors.Is(err, ErrJournalGone) {
			t.Errorf("%s: Events() error = %v, want ErrJournalGone", how, err)
		}
	}
}
