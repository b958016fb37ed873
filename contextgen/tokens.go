package contextgen

import "github.com/deltakit/delta/lib/llm"

// CharsPerToken is the ratio of the token estimate (llm.CharsPerToken).
const CharsPerToken = llm.CharsPerToken

// EstimateTokens estimates the tokens of msgs: the characters of their
// contents, names and tool calls, divided by CharsPerToken and rounded up.
func EstimateTokens(msgs []llm.Message) int {
	return llm.TokensOf(llm.MessageChars(msgs))
}
