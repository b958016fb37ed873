package agent

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadWithSettings(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: s\nmax_iterations: 5\nllm:\n  model: m1\n"})
	var settings []Setting
	for _, text := range []string{"max_iterations=50", "llm.temperature=0.2", "llm.stop=[END, STOP]", "env.passthrough=[GH_TOKEN]", "max_iterations=60"} {
		s, err := ParseSetting(text)
		if err != nil {
			t.Fatalf("ParseSetting(%q): %v", text, err)
		}
		settings = append(settings, s)
	}
	a, err := LoadWith(dir, settings)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxIterations != 60 || a.LLM.Model != "m1" || a.LLM.Temperature == nil || *a.LLM.Temperature != 0.2 ||
		strings.Join(a.LLM.Stop, ",") != "END,STOP" || strings.Join(a.Env.Passthrough, ",") != "GH_TOKEN" {
		t.Errorf("LoadWith = max_iterations %d, llm %+v, env %+v", a.MaxIterations, a.LLM, a.Env)
	}
}

func TestParseSettingErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"max_iteration=5", `unknown key "max_iteration" in agent.yaml (did you mean "max_iterations"?); valid keys: name,`},
		{"llm.temprature=1", `unknown key "temprature" in llm (did you mean "temperature"?)`},
		{"novalue", "give KEY=VALUE"},
		{"llm..model=x", "an empty part"},
	} {
		_, err := ParseSetting(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSetting(%q) error = %v, want it to contain %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParseSetting("bogus=1"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("ParseSetting(bogus=1) error = %v, want ErrUnknownKey", err)
	}
}

// A value of the wrong type is found as one written in agent.yaml is.
func TestLoadWithBadValue(t *testing.T) {
	dir := writeAgent(t, map[string]string{"agent.yaml": "name: s\n"})
	s, err := ParseSetting("max_iterations=lots")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWith(dir, []Setting{s}); err == nil || !strings.Contains(err.Error(), "max_iterations") {
		t.Errorf("LoadWith(max_iterations=lots) error = %v, want one about max_iterations", err)
	}
}
