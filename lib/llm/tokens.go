package llm

import "unicode/utf8"

// CharsPerToken is the ratio of Delta's token estimate: a rough figure for
// English text and code with OpenAI-style tokenizers, good enough for a
// budget and identical wherever Delta counts (context budgets, the
// context-window warning).
const CharsPerToken = 4

// PartTokens is the estimate of one image or sound: about what a
// provider charges for an image of the size it scales images to (Claude:
// about 1,600 tokens for 1.15 megapixels; OpenAI a little less).
const PartTokens = 1600

// MessageChars counts the characters of msgs: their contents, names and
// tool calls, and PartTokens' worth for each part.
func MessageChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += utf8.RuneCountInString(m.Content) + utf8.RuneCountInString(m.Name) + len(m.Parts)*PartTokens*CharsPerToken
		for _, tc := range m.ToolCalls {
			n += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
		}
	}
	return n
}

// TokensOf is the token estimate of chars characters, rounded up.
func TokensOf(chars int) int { return (chars + CharsPerToken - 1) / CharsPerToken }
