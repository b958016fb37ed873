package contextgen

import (
	"unicode/utf8"

	"github.com/deltakit/delta/lib/llm"
)

// CharsPerToken is the ratio of the token estimate: a rough figure for
// English text and code with OpenAI-style tokenizers, good enough for a
// budget and identical wherever Delta counts.
const CharsPerToken = 4

// EstimateTokens estimates the tokens of msgs: the characters of their
// contents, names and tool calls, divided by CharsPerToken and rounded up.
func EstimateTokens(msgs []llm.Message) int {
	return tokensOf(charCount(msgs))
}

func tokensOf(chars int) int { return (chars + CharsPerToken - 1) / CharsPerToken }

func charCount(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += utf8.RuneCountInString(m.Content) + utf8.RuneCountInString(m.Name)
		for _, tc := range m.ToolCalls {
			n += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
		}
	}
	return n
}
