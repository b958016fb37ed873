package llm

import "testing"

func TestContextWindowOf(t *testing.T) {
	for model, want := range map[string]int64{
		"gpt-4o":                     128000,
		"gpt-4o-2024-08-06":          128000,
		"gpt-4o-mini-2024-07-18":     128000,
		"gpt-4.1-mini":               1047576,
		"openai/gpt-5":               400000,
		"claude-sonnet-4-5-20250929": 200000,
		"llama3":                     0,
	} {
		got, ok := ContextWindowOf(model)
		if got != want || ok != (want != 0) {
			t.Errorf("ContextWindowOf(%q) = %d, %v; want %d", model, got, ok, want)
		}
	}
	for name := range Prices {
		if _, ok := ContextWindows[name]; !ok {
			t.Errorf("%s has a price but no context window", name)
		}
	}
}
