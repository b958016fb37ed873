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

// journalSource is a journal source of the conversation c: the last
// max_iterations iterations, then, if max_tokens is set, older iterations
// dropped one by one until the estimate fits. User messages are never
// dropped and the latest iteration is always kept, even over budget: the
// model must see the answer to its last call.
func journalSource(c *conversation, src agent.ContextSource) Part {
	from := c.firstKept(src.MaxIterations)
	if src.MaxTokens <= 0 {
		return Part{Messages: c.window(from)}
	}
	budget := src.MaxTokens * llm.CharsPerToken
	dropped := 0
	for from < c.blocks-1 && c.chars(from) > budget {
		from++
		dropped++
	}
	if dropped == 0 {
		return Part{Messages: c.window(from)}
	}
	note := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("%s%d earlier iteration(s) omitted to fit max_tokens: %d; iterations %d to %d follow", SystemNotePrefix, from, src.MaxTokens, from+1, c.blocks)}
	var out []llm.Message
	placed := false
	for _, s := range c.segs {
		if !s.user && s.block < from {
			continue
		}
		if !placed && !s.user {
			out = append(out, note)
			placed = true
		}
		out = append(out, s.msgs...)
	}
	return Part{Messages: out, Truncated: true}
}
