package contextgen

import "github.com/deltakit/delta/lib/llm"

// EstimateTokens estimates the tokens of msgs: the characters of their
// contents, names and tool calls, divided by llm.CharsPerToken and rounded up.
func EstimateTokens(msgs []llm.Message) int {
	return llm.TokensOf(llm.MessageChars(msgs))
}
