// Package boardtest is the table of tests every store of a workflow's
// board passes (the file, memory and cluster stores): the rules of the
// channel, inboxes, documents and proposals, which the board package keeps
// once over any board.Store.
package boardtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/workflow/board"
	"github.com/google/go-cmp/cmp"
)

// Opener returns a provider of a new, empty context following cfg
// (cfg.Now is the test's clock); the test closes it.
type Opener func(t *testing.T, cfg board.Config) board.Provider

// Run runs every test of the table against the providers open returns.
func Run(t *testing.T, open Opener) {
	for _, tt := range []struct {
		name string
		f    func(*testing.T, Opener)
	}{
		{"ChannelAndInbox", testChannelAndInbox},
		{"Wait", testWait},
		{"DocumentsOwnership", testDocumentsOwnership},
		{"DocumentPaths", testDocumentPaths},
		{"NoOwnerAnyoneWrites", testNoOwnerAnyoneWrites},
		{"ElectionByVotes", testElectionByVotes},
		{"DecisionMajorityAndExpiry", testDecisionMajorityAndExpiry},
		{"AssignmentAndCancel", testAssignmentAndCancel},
		{"OwnerElectionExpires", testOwnerElectionExpires},
		{"AgentOpensOwnerElection", testAgentOpensOwnerElection},
		{"NonAgentVotes", testNonAgentVotes},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.f(t, open) })
	}
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// providers runs f against a provider open returns, on a fresh context
// whose clock f can advance.
func providers(t *testing.T, open Opener, cfg board.Config, f func(t *testing.T, p board.Provider, c *clock)) {
	t.Helper()
	c := newClock()
	cfg.Now = c.now
	p := open(t, cfg)
	t.Cleanup(func() { p.Close() })
	f(t, p, c)
}

var bg = context.Background()

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func messages(t *testing.T, p board.Provider) []string {
	t.Helper()
	entries := must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{}))
	var out []string
	for _, e := range entries {
		out = append(out, e.From+": "+e.Message)
	}
	return out
}

func testChannelAndInbox(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"reviewer", "coder"}}, func(t *testing.T, p board.Provider, c *clock) {
		e1 := must[board.Entry](t)(p.Append(bg, board.System, "Workflow started"))
		c.advance(time.Second)
		e2 := must[board.Entry](t)(p.Append(bg, "reviewer", "@coder found an auth issue in line 42"))
		c.advance(time.Second)
		e3 := must[board.Entry](t)(p.Append(bg, "coder", "@coder note to self, @reviewer urgent: please verify"))
		if e1.Seq != 1 || e2.Seq != 2 || e3.Seq != 3 {
			t.Fatalf("seqs = %d %d %d, want 1 2 3", e1.Seq, e2.Seq, e3.Seq)
		}
		if !cmp.Equal(e3.Mentions, []string{"coder", "reviewer"}) {
			t.Errorf("mentions = %v", e3.Mentions)
		}
		if got := must[int64](t)(p.LastSeq(bg)); got != 3 {
			t.Errorf("LastSeq = %d, want 3", got)
		}

		// coder's own message does not land in its inbox.
		in := must[[]board.InboxMessage](t)(p.Inbox(bg, "coder"))
		if len(in) != 1 || in[0].Entry.Seq != 2 || in[0].Priority != board.PriorityNormal || !in[0].Unread {
			t.Fatalf("coder inbox = %+v, want entry 2, normal", in)
		}
		in = must[[]board.InboxMessage](t)(p.Inbox(bg, "reviewer"))
		if len(in) != 1 || in[0].Entry.Seq != 3 || in[0].Priority != board.PriorityHigh {
			t.Fatalf("reviewer inbox = %+v, want entry 3, high", in)
		}
		// Checking and reading acknowledge nothing.
		must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{}))
		if in := must[[]board.InboxMessage](t)(p.Inbox(bg, "coder")); len(in) != 1 {
			t.Fatalf("inbox after check = %d entries, want 1", len(in))
		}
		if err := p.Ack(bg, "coder", 2); err != nil {
			t.Fatal(err)
		}
		if in := must[[]board.InboxMessage](t)(p.Inbox(bg, "coder")); len(in) != 0 {
			t.Fatalf("inbox after ack = %+v, want empty", in)
		}
		// Cursors never move back, and cannot pass the end.
		if err := p.Ack(bg, "coder", 1); err != nil {
			t.Fatal(err)
		}
		if got := must[int64](t)(p.Cursor(bg, "coder")); got != 2 {
			t.Errorf("cursor after older ack = %d, want 2", got)
		}
		if err := p.Ack(bg, "reviewer", 99); err != nil {
			t.Fatal(err)
		}
		if got := must[int64](t)(p.Cursor(bg, "reviewer")); got != 3 {
			t.Errorf("cursor after ack 99 = %d, want 3 (the last entry)", got)
		}

		// Read: after a seq, after a time, the last N.
		got := must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{AfterSeq: 1, Limit: 1}))
		if len(got) != 1 || got[0].Seq != 3 {
			t.Errorf("Read(after 1, limit 1) = %+v, want entry 3", got)
		}
		got = must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{Since: e1.Timestamp}))
		if len(got) != 2 || got[0].Seq != 2 {
			t.Errorf("Read(since e1) = %+v, want entries 2, 3", got)
		}
		if seq := board.SeqAt(must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{})), e2.Timestamp); seq != 2 {
			t.Errorf("SeqAt(e2's time) = %d, want 2", seq)
		}

		if _, err := p.Append(bg, "not a name", "x"); !errors.Is(err, board.ErrInvalid) {
			t.Errorf("Append as %q = %v, want board.ErrInvalid", "not a name", err)
		}
		if _, err := p.Append(bg, "coder", "  "); !errors.Is(err, board.ErrInvalid) {
			t.Errorf("Append of blank = %v, want board.ErrInvalid", err)
		}
	})
}

func testWait(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a"}}, func(t *testing.T, p board.Provider, c *clock) {
		done := make(chan int64)
		go func() {
			seq, _ := p.Wait(bg, 0)
			done <- seq
		}()
		must[board.Entry](t)(p.Append(bg, "a", "hello"))
		if seq := <-done; seq != 1 {
			t.Errorf("Wait(0) = %d, want 1", seq)
		}
		ctx, cancel := context.WithCancel(bg)
		cancel()
		if _, err := p.Wait(ctx, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait on a cancelled context = %v, want context.Canceled", err)
		}
	})
}

func testDocumentsOwnership(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"reviewer", "coder", "scribe"}, DocumentOwner: "scribe", Document: "workspace.md"}, func(t *testing.T, p board.Provider, c *clock) {
		tools := board.NewTools(p)
		if got := must[string](t)(p.ReadDocument(bg, "")); got != "" {
			t.Errorf("fresh entry document = %q, want empty", got)
		}
		if err := p.WriteDocument(bg, "scribe", "", "# Review\n"); err != nil {
			t.Fatal(err)
		}
		if err := p.AppendDocument(bg, "scribe", "", "- auth issue\n"); err != nil {
			t.Fatal(err)
		}
		if err := p.CreateDocument(bg, "scribe", "findings/auth.md", "# Auth\n"); err != nil {
			t.Fatal(err)
		}
		if err := p.CreateDocument(bg, "scribe", "findings/auth.md", "again"); !errors.Is(err, board.ErrExists) {
			t.Errorf("CreateDocument of an existing file = %v, want board.ErrExists", err)
		}
		if got := must[string](t)(p.ReadDocument(bg, "workspace.md")); got != "# Review\n- auth issue\n" {
			t.Errorf("entry document = %q", got)
		}
		if got := must[[]string](t)(p.ListDocuments(bg)); !cmp.Equal(got, []string{"findings/auth.md", "workspace.md"}) {
			t.Errorf("ListDocuments = %v", got)
		}

		// A non-owner is refused with the seed's words and suggests instead.
		_, err := tools.Call(bg, "coder", "document_write", []byte(`{"content":"mine"}`))
		var te *board.ToolError
		if !errors.As(err, &te) || !errors.Is(err, board.ErrNotOwner) || err.Error() != "Only @scribe can write to documents. Use document_suggest instead." {
			t.Fatalf("coder's document_write = %v, want the ownership refusal", err)
		}
		for _, call := range []struct{ name, args string }{
			{"document_append", `{"content":"x"}`},
			{"document_create", `{"file":"x.md","content":"x"}`},
			{"document_delete", `{"file":"findings/auth.md"}`},
		} {
			if _, err := tools.Call(bg, "coder", call.name, []byte(call.args)); !errors.Is(err, board.ErrNotOwner) {
				t.Errorf("coder's %s = %v, want board.ErrNotOwner", call.name, err)
			}
		}
		out := must[string](t)(tools.Call(bg, "coder", "document_suggest", []byte(`{"suggestion":"Add: N+1 query in user loader","file":"findings/perf.md","reason":"found while fixing auth"}`)))
		if out != "Suggestion sent to @scribe" {
			t.Errorf("document_suggest = %q", out)
		}
		last := must[[]board.Entry](t)(p.Read(bg, board.ReadOptions{Limit: 1}))[0]
		want := "@scribe [DOC_SUGGEST] in findings/perf.md\nAdd: N+1 query in user loader\nReason: found while fixing auth"
		if last.From != "coder" || last.Message != want || !cmp.Equal(last.Mentions, []string{"scribe"}) {
			t.Errorf("suggestion entry = %+v, want from coder: %q mentioning scribe", last, want)
		}
		if in := must[[]board.InboxMessage](t)(p.Inbox(bg, "scribe")); len(in) != 1 {
			t.Errorf("scribe's inbox = %d messages, want the suggestion", len(in))
		}
		// The owner deletes; the document is gone.
		if err := p.DeleteDocument(bg, "scribe", "findings/auth.md"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.ReadDocument(bg, "findings/auth.md"); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("reading a deleted document = %v, want board.ErrNotFound", err)
		}
	})
}

func testDocumentPaths(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"a", "b"}, DocumentOwner: "a"}, func(t *testing.T, p board.Provider, c *clock) {
		for _, bad := range []string{"../escape.md", "/etc/passwd", "a/../../x", ".hidden", "dir/.git/config", `a\b`} {
			if err := p.WriteDocument(bg, "a", bad, "x"); !errors.Is(err, board.ErrBadPath) {
				t.Errorf("WriteDocument(%q) = %v, want board.ErrBadPath", bad, err)
			}
			if _, err := p.ReadDocument(bg, bad); !errors.Is(err, board.ErrBadPath) {
				t.Errorf("ReadDocument(%q) = %v, want board.ErrBadPath", bad, err)
			}
		}
		if err := p.WriteDocument(bg, "a", "./sub/./x.md", "x"); err != nil {
			t.Errorf("WriteDocument(./sub/./x.md) = %v", err)
		}
		if got := must[[]string](t)(p.ListDocuments(bg)); !cmp.Equal(got, []string{"sub/x.md"}) {
			t.Errorf("ListDocuments = %v", got)
		}
	})
}

func testNoOwnerAnyoneWrites(t *testing.T, open Opener) {
	providers(t, open, board.Config{Agents: []string{"solo"}}, func(t *testing.T, p board.Provider, c *clock) {
		if _, ok, err := p.StartOwnerElection(bg, time.Minute); err != nil || ok {
			t.Fatalf("StartOwnerElection with one agent = %v, %v; want none", ok, err)
		}
		if err := p.WriteDocument(bg, "solo", "", "x"); err != nil {
			t.Fatal(err)
		}
		out := must[string](t)(board.NewTools(p).Call(bg, "solo", "document_suggest", []byte(`{"suggestion":"y"}`)))
		if out != "Suggestion sent to @system" {
			t.Errorf("suggest with no owner = %q", out)
		}
	})
}
