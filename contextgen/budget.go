package contextgen

import (
	"fmt"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

// truncateText cuts content to about maxTokens tokens (0: no limit),
// keeping its head and ending it with a visible marker that says how much
// was left out, so the model knows the block is incomplete.
func truncateText(content string, maxTokens int) (string, bool) {
	total := utf8.RuneCountInString(content)
	if maxTokens <= 0 || llm.TokensOf(total) <= maxTokens {
		return content, false
	}
	budget := maxTokens * llm.CharsPerToken
	marker := func(kept int) string {
		return fmt.Sprintf("\n\n[truncated by delta: %d of %d characters shown (max_tokens: %d)]", kept, total, maxTokens)
	}
	keep := max(budget-utf8.RuneCountInString(marker(total)), 0)
	runes := 0
	for i := range content {
		if runes == keep {
			return content[:i] + marker(keep), true
		}
		runes++
	}
	return content + marker(total), true
}

// journalSource is a journal source of the conversation c, its messages
// joined (journalPieces).
func journalSource(c *conversation, src agent.ContextSource) Part {
	pieces, chars, truncated := journalPieces(c, src)
	return Part{Messages: join(pieces), Truncated: truncated, Tokens: llm.TokensOf(chars)}
}

// journalPieces are the messages of a journal source of the conversation
// c, in the pieces they were built in: the last max_iterations
// iterations, then, if max_tokens is set, older iterations dropped one by
// one until the estimate fits (truncated). User messages are never
// dropped and the latest iteration is always kept, even over budget: the
// model must see the answer to its last call. chars counts their
// characters (llm.MessageChars), from the counts the conversation keeps.
func journalPieces(c *conversation, src agent.ContextSource) (pieces [][]llm.Message, chars int, truncated bool) {
	from := c.firstKept(src.MaxIterations)
	if src.MaxTokens <= 0 {
		return c.pieces(from), c.chars(from), false
	}
	budget := src.MaxTokens * llm.CharsPerToken
	dropped := 0
	for from < c.blocks-1 && c.chars(from) > budget {
		from++
		dropped++
	}
	if dropped == 0 {
		return c.pieces(from), c.chars(from), false
	}
	note := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("%s%d earlier iteration(s) omitted to fit max_tokens: %d; iterations %d to %d follow", SystemNotePrefix, from, src.MaxTokens, from+1, c.blocks)}
	placed := false
	for _, s := range c.segs {
		if !s.user && s.block < from {
			continue
		}
		if !placed && !s.user {
			pieces = append(pieces, []llm.Message{note})
			placed = true
		}
		pieces = append(pieces, s.msgs)
	}
	return pieces, c.chars(from) + llm.MessageChars([]llm.Message{note}), true
}

// join is the messages of pieces in one slice (nil when there are none),
// sized at once: a long conversation's messages would otherwise be
// copied at every doubling, fresh memory each time.
func join(pieces [][]llm.Message) []llm.Message {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if n == 0 {
		return nil
	}
	out := make([]llm.Message, 0, n)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out
}
