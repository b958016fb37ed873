package llm

import (
	"math/bits"
	"unicode/utf8"
)

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
		n += runeCount(m.Content) + runeCount(m.Name) + len(m.Parts)*PartTokens*CharsPerToken
		for _, tc := range m.ToolCalls {
			n += runeCount(tc.Name) + runeCount(tc.Arguments)
		}
	}
	return n
}

// runeCount is utf8.RuneCountInString, eight bytes at a time for valid
// UTF-8 (its characters are the bytes that do not continue one):
// delta-context counts every message of a long conversation.
func runeCount(s string) int {
	if !utf8.ValidString(s) {
		return utf8.RuneCountInString(s) // each invalid byte is one
	}
	const highs = 0x8080808080808080
	cont := 0 // continuation bytes: 10xxxxxx
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		cont += bits.OnesCount64(w & ^(w << 1) & highs)
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			cont++
		}
	}
	return len(s) - cont
}

// TokensOf is the token estimate of chars characters, rounded up.
func TokensOf(chars int) int { return (chars + CharsPerToken - 1) / CharsPerToken }
