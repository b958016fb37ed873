package llm

// ContextWindows are the context sizes, in tokens, of common models as
// published when this table was last updated; dated snapshots match their
// family as in Prices. agent.yaml's llm.context_window overrides it.
var ContextWindows = map[string]int64{
	"gpt-5":                 400000,
	"gpt-5-mini":            400000,
	"gpt-5-nano":            400000,
	"gpt-4.1":               1047576,
	"gpt-4.1-mini":          1047576,
	"gpt-4.1-nano":          1047576,
	"gpt-4o":                128000,
	"gpt-4o-mini":           128000,
	"o3":                    200000,
	"o3-mini":               200000,
	"o4-mini":               200000,
	"claude-opus-4-5":       200000,
	"claude-opus-4-1":       200000,
	"claude-opus-4":         200000,
	"claude-sonnet-4-5":     200000,
	"claude-sonnet-4":       200000,
	"claude-3-7-sonnet":     200000,
	"claude-haiku-4-5":      200000,
	"claude-3-5-haiku":      200000,
	"gemini-3-pro-preview":  1048576,
	"gemini-2.5-pro":        1048576,
	"gemini-2.5-flash":      1048576,
	"gemini-2.5-flash-lite": 1048576,
}

// ContextWindowOf is model's context size from ContextWindows; false when
// the table does not know it.
func ContextWindowOf(model string) (int64, bool) { return lookup(ContextWindows, model) }
