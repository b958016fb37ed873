package contextgen

import (
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/google/go-cmp/cmp"
)

// TestConversationOfNewEvents: the Builder extends its last conversation
// only when the events are the same ones with more appended; events read
// anew (another slice: the journal was changed by someone else, or
// reloaded) are rebuilt from the start, even when they are as many or
// more.
func TestConversationOfNewEvents(t *testing.T) {
	first := []journal.Event{
		{Type: journal.UserMessage, Seq: 1, Content: "task"},
		{Type: journal.Thought, Seq: 2, Content: "one"},
	}
	edited := []journal.Event{
		{Type: journal.UserMessage, Seq: 1, Content: "another task"},
		{Type: journal.Thought, Seq: 2, Content: "two"},
		{Type: journal.Thought, Seq: 3, Content: "three"},
	}
	b := New()
	for _, events := range [][]journal.Event{first, edited, edited[:1], first} {
		got := journalSource(b.conversationOf(events, ""), agent.ContextSource{})
		want := journalSource(rebuild(events), agent.ContextSource{})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("events %v: (-rebuild +builder):\n%s", events, diff)
		}
	}
}
