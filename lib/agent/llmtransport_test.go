package agent

import (
	"strings"
	"testing"
)

// llm.api and the stream time limits are read, and wrong values are
// problems naming the key.
func TestLoadLLMTransport(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\nllm:\n  provider: openai-compatible\n  model: llama3\n  api: chat\n" +
		"  first_byte_timeout_ms: 30000\n  idle_timeout_ms: 45000\n"})
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.LLM.Provider != "openai-compatible" || a.LLM.API != "chat" || a.LLM.FirstByteTimeoutMS == nil || *a.LLM.FirstByteTimeoutMS != 30000 ||
		a.LLM.IdleTimeoutMS == nil || *a.LLM.IdleTimeoutMS != 45000 {
		t.Errorf("LLM = %+v", a.LLM)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"  api: completions\n", `unknown llm.api "completions"`},
		{"  idle_timeout_ms: 0\n", "llm.idle_timeout_ms must be a positive number of milliseconds"},
		{"  first_byte_timeout_ms: -1\n", "llm.first_byte_timeout_ms must be a positive number of milliseconds"},
	} {
		dir := writeAgent(t, map[string]string{"agent.yaml": "name: m\nllm:\n  model: m\n" + tc.yaml})
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) error = %v, want it to contain %q", tc.yaml, err, tc.want)
		}
	}
}
