package workflow

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/deltakit/delta/workflow/board"
)

// Limits of the digest: the inbox is given whole, the rest is cut.
const (
	digestRecent      = 20   // recent channel entries
	digestEntryChars  = 600  // of each recent entry
	digestDocumentMax = 8000 // of the document
)

// digestInput is what an agent is told when it is run.
type digestInput struct {
	Agent, Workflow, Instance string
	Inbox                     []board.InboxMessage
	Recent                    []board.Entry
	// Document is the entry document's name and content; DocumentOK is
	// false without a shared context.
	DocumentName, Document string
	DocumentOK             bool
	// OtherDocuments are the other documents' paths.
	OtherDocuments []string
	// Owner is the document owner ("" when anyone writes).
	Owner string
	// Attempt counts the attempts at this delivery (1: the first).
	Attempt int
}

// digest is the message an agent's run gets: its inbox, the recent channel
// and the shared document, and what to do.
func digest(in digestInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are @%s in the workflow %q (instance %s).", in.Agent, in.Workflow, in.Instance)
	if in.Attempt > 1 {
		fmt.Fprintf(&b, " This is attempt %d: an earlier attempt to handle these messages failed.", in.Attempt)
	}
	fmt.Fprintf(&b, "\n\n## Inbox (%d %s for you)\n\n", len(in.Inbox), plural(len(in.Inbox), "message", "messages"))
	if len(in.Inbox) == 0 {
		b.WriteString("(no messages)\n")
	}
	inInbox := map[int64]bool{}
	for _, m := range in.Inbox {
		inInbox[m.Entry.Seq] = true
		high := ""
		if m.Priority == board.PriorityHigh {
			high = " [HIGH]"
		}
		fmt.Fprintf(&b, "- #%d from @%s%s at %s:\n%s\n", m.Entry.Seq, m.Entry.From, high, m.Entry.Timestamp.UTC().Format("15:04:05"), indent(m.Entry.Message))
	}
	if len(in.Recent) > 0 {
		fmt.Fprintf(&b, "\n## Recent activity (the last %d channel messages)\n\n", len(in.Recent))
		for _, e := range in.Recent {
			msg := e.Message
			if inInbox[e.Seq] {
				msg = "(in your inbox above)"
			}
			fmt.Fprintf(&b, "[%s] #%d @%s: %s\n", e.Timestamp.UTC().Format("15:04:05"), e.Seq, e.From, cut(oneLine(msg), digestEntryChars))
		}
	}
	if in.DocumentOK {
		fmt.Fprintf(&b, "\n## Shared document (%s)\n\n", in.DocumentName)
		switch doc := strings.TrimSpace(in.Document); {
		case doc == "":
			b.WriteString("(empty)\n")
		case len(doc) > digestDocumentMax:
			b.WriteString(cut(doc, digestDocumentMax) + "\n(cut here: read the whole document with document_read)\n")
		default:
			b.WriteString(doc + "\n")
		}
		if len(in.OtherDocuments) > 0 {
			fmt.Fprintf(&b, "\nOther documents (document_read with file): %s\n", strings.Join(in.OtherDocuments, ", "))
		}
	}
	b.WriteString("\n## Instructions\n\n")
	switch {
	case in.DocumentOK && in.Owner != "" && in.Owner != in.Agent:
		fmt.Fprintf(&b, "Handle the messages of your inbox. Post to the channel with channel_send, @mentioning whoever should act next (they are woken at once). Only @%s changes the documents: send what should be recorded there with document_suggest. ", in.Owner)
	case in.DocumentOK && in.Owner == in.Agent:
		b.WriteString("Handle the messages of your inbox. Post to the channel with channel_send, @mentioning whoever should act next (they are woken at once). You own the documents: keep findings and decisions there (document_write, document_append), including the [DOC_SUGGEST] suggestions others send you. ")
	case in.DocumentOK:
		b.WriteString("Handle the messages of your inbox. Post to the channel with channel_send, @mentioning whoever should act next (they are woken at once); keep findings and decisions in the shared document (document_write, document_append). ")
	default:
		b.WriteString("Handle the messages of your inbox. Your final answer is posted to the channel: @mention there whoever should act next. ")
	}
	b.WriteString("When you are done, answer briefly with no tool call: your inbox is then marked read.\n")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// oneLine joins s's lines with " / ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " / ")), " ")
}

// cut shortens s to at most n bytes (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}
