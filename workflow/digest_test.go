package workflow

import (
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/workflow/board"
)

func TestDigest(t *testing.T) {
	e := board.Entry{Seq: 3, Timestamp: time.Date(2025, 1, 15, 10, 0, 5, 0, time.UTC), From: "reviewer", Message: "@coder urgent: fix line 42", Mentions: []string{"coder"}}
	base := digestInput{Agent: "coder", Workflow: "review", Instance: "pr-1", Inbox: []board.InboxMessage{{Entry: e, Unread: true, Priority: board.PriorityHigh}},
		Recent: []board.Entry{e}, DocumentOK: true, DocumentName: "notes.md", Document: "# Notes", OtherDocuments: []string{"goals.md"}, Attempt: 2}
	for _, tc := range []struct {
		name  string
		owner string
		want  []string
		not   []string
	}{
		{"no owner", "", []string{"keep findings and decisions in the shared document (document_write, document_append)"}, []string{"document_suggest"}},
		{"another owns", "scribe", []string{"Only @scribe changes the documents: send what should be recorded there with document_suggest."}, []string{"document_write"}},
		{"owner", "coder", []string{"You own the documents", "[DOC_SUGGEST]"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			in.Owner = tc.owner
			got := digest(in)
			for _, w := range append([]string{
				`You are @coder in the workflow "review" (instance pr-1). This is attempt 2`,
				"## Inbox (1 message for you)",
				"- #3 from @reviewer [HIGH] at 10:00:05:\n  @coder urgent: fix line 42",
				"[10:00:05] #3 @reviewer: (in your inbox above)",
				"## Shared document (notes.md)\n\n# Notes\n",
				"Other documents (document_read with file): goals.md",
			}, tc.want...) {
				if !strings.Contains(got, w) {
					t.Errorf("digest lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got[strings.Index(got, "## Instructions"):], n) {
					t.Errorf("instructions mention %q:\n%s", n, got)
				}
			}
		})
	}
}
