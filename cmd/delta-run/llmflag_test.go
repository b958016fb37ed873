package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

func TestResolveLLM(t *testing.T) {
	scripted := agent.LLMConfig{Provider: "scripted", Model: "scripted", Script: "/a/script.yaml"}
	real := agent.LLMConfig{Provider: "openai", Model: "gpt-agent"}
	abs, _ := filepath.Abs("other.yaml")
	for _, tc := range []struct {
		name     string
		cfg      agent.LLMConfig
		override string
		env      map[string]string
		want     agent.LLMConfig
		wantErr  bool
	}{
		{name: "no override", cfg: real, want: real},
		{name: "model from --llm", cfg: scripted, override: "openai:gpt-test",
			want: agent.LLMConfig{Provider: "openai", Model: "gpt-test", Script: "/a/script.yaml"}},
		{name: "anthropic model", cfg: real, override: "anthropic:claude-x", want: agent.LLMConfig{Provider: "anthropic", Model: "claude-x"}},
		{name: "DELTA_MODEL when --llm names none", cfg: scripted, override: "openai", env: map[string]string{"DELTA_MODEL": "gpt-env"},
			want: agent.LLMConfig{Provider: "openai", Model: "gpt-env", Script: "/a/script.yaml"}},
		{name: "DELTA_MODEL beats llm.model after a switch", cfg: real, override: "anthropic", env: map[string]string{"DELTA_MODEL": "claude-env"},
			want: agent.LLMConfig{Provider: "anthropic", Model: "claude-env"}},
		{name: "--llm model beats DELTA_MODEL", cfg: real, override: "openai:gpt-flag", env: map[string]string{"DELTA_MODEL": "gpt-env"},
			want: agent.LLMConfig{Provider: "openai", Model: "gpt-flag"}},
		{name: "DELTA_MODEL beats llm.model without --llm", cfg: real, env: map[string]string{"DELTA_MODEL": "gpt-env"},
			want: agent.LLMConfig{Provider: real.Provider, Model: "gpt-env"}},
		{name: "DELTA_MODEL leaves a scripted agent's script alone", cfg: scripted, env: map[string]string{"DELTA_MODEL": "sonnet"}, want: scripted},
		{name: "DELTA_MODEL fills an empty llm.model", cfg: agent.LLMConfig{Provider: "openai"}, env: map[string]string{"DELTA_MODEL": "gpt-env"},
			want: agent.LLMConfig{Provider: "openai", Model: "gpt-env"}},
		{name: "--llm keeps llm.model", cfg: real, override: "openai", want: real},
		{name: "scripted file", cfg: real, override: "scripted:other.yaml", want: agent.LLMConfig{Provider: "scripted", Model: "gpt-agent", Script: abs}},
		{name: "scripted model needs no name", cfg: scripted, override: "scripted", want: scripted},
		{name: "switch keeps model scripted", cfg: scripted, override: "openai", wantErr: true},
		{name: "empty model after colon", cfg: scripted, override: "anthropic:", wantErr: true},
		{name: "no model at all", cfg: agent.LLMConfig{}, wantErr: true},
		{name: "provider/model", cfg: scripted, override: "anthropic/claude-sonnet-4-5",
			want: agent.LLMConfig{Provider: "anthropic", Model: "claude-sonnet-4-5", Script: "/a/script.yaml"}},
		{name: "colon keeps a slash in the model", cfg: real, override: "openai:meta-llama/llama-3", want: agent.LLMConfig{Provider: "openai", Model: "meta-llama/llama-3"}},
		{name: "alias", cfg: real, override: "sonnet", want: agent.LLMConfig{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{name: "gemini", cfg: real, override: "gemini/gemini-2.5-flash", want: agent.LLMConfig{Provider: "gemini", Model: "gemini-2.5-flash"}},
		{name: "llm.model names its provider", cfg: agent.LLMConfig{Model: "anthropic/claude-x"}, want: agent.LLMConfig{Provider: "anthropic", Model: "claude-x"}},
		{name: "llm.model alias", cfg: agent.LLMConfig{Model: "opus"}, want: agent.LLMConfig{Provider: "anthropic", Model: "claude-opus-4-5"}},
		{name: "DELTA_MODEL names its provider when llm.provider is not set", cfg: agent.LLMConfig{Provider: "openai", DefaultProvider: true},
			env: map[string]string{"DELTA_MODEL": "sonnet"}, want: agent.LLMConfig{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{name: "DELTA_MODEL is sent as is with llm.provider set", cfg: agent.LLMConfig{Provider: "openai"},
			env: map[string]string{"DELTA_MODEL": "anthropic/claude-x"}, want: agent.LLMConfig{Provider: "openai", Model: "anthropic/claude-x"}},
		{name: "llm.provider keeps a slashed model", cfg: agent.LLMConfig{Provider: "openai", Model: "anthropic/claude-x"},
			want: agent.LLMConfig{Provider: "openai", Model: "anthropic/claude-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveLLM(tc.cfg, tc.override, "", tc.env)
			if tc.wantErr {
				var ce *cli.Error
				if !errors.Is(err, errNoModel) || !errors.As(err, &ce) || ce.Code != runs.ExitConfig || !strings.Contains(ce.Hint, ":MODEL") {
					t.Fatalf("resolveLLM = %+v, %v; want errNoModel with exit 126 and a --llm hint", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("resolved llm (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveLLMUnknownProvider(t *testing.T) {
	for _, override := range []string{"gpt4", "mistral/large", "foo:bar"} {
		_, err := resolveLLM(agent.LLMConfig{Provider: "openai", Model: "m"}, override, "", nil)
		var ce *cli.Error
		if !errors.Is(err, provider.ErrUnknownProvider) || !errors.As(err, &ce) || ce.Code != runs.ExitConfig ||
			!strings.Contains(err.Error(), "PROVIDER:MODEL or PROVIDER/MODEL") || !strings.Contains(err.Error(), "sonnet") {
			t.Errorf("resolveLLM(--llm %s) error = %v; want ErrUnknownProvider listing the accepted forms, exit 126", override, err)
		}
	}
}

// TestLLMFlagSetsModel: the offline hello-world agent, switched to the
// OpenAI-compatible fake server with --llm openai:gpt-test, sends model
// gpt-test (not the agent's "scripted"), and the run records it.
func TestLLMFlagSetsModel(t *testing.T) {
	root, err := clitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.ReplyText(`{"greeting": "hello"}`)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey, "DELTA_MODEL=ignored-when-flag-names-one"}
	stdout, stderr, code := runDelta(t, env, "run", "--agent", filepath.Join(root, "examples", "hello-world"), "-w", ws,
		"-m", "greet", "--run-id", "llmflag", "--llm", "openai:gpt-test", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "gpt-test" {
		t.Fatalf("server saw %d requests, first model %q; want 1 with gpt-test", len(reqs), firstModel(reqs))
	}
	var res runs.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Status != "COMPLETED" {
		t.Fatalf("RunResult = %+v (%v)", res, err)
	}
	if _, ok := res.Metrics.Usage.ModelUsage["gpt-test"]; !ok {
		t.Errorf("model_usage = %v, want an entry for gpt-test", res.Metrics.Usage.ModelUsage)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "llmflag", "journal.jsonl"))
	var config map[string]any
	if err := json.Unmarshal(evs[0].Config, &config); err != nil || config["provider"] != "openai" || config["model"] != "gpt-test" {
		t.Errorf("ENGINE_START config = %s, want provider openai and model gpt-test", evs[0].Config)
	}

	// Without a model the switch fails at once, before any request.
	_, stderr, code = runDelta(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey},
		"run", "--agent", filepath.Join(root, "examples", "hello-world"), "-w", t.TempDir(), "-m", "greet", "--llm", "openai")
	if code != 126 || !strings.Contains(stderr, "--llm openai:MODEL") || len(srv.Requests()) != 1 {
		t.Errorf("--llm openai without a model: exit %d, %d requests\n%s", code, len(srv.Requests()), stderr)
	}
}

func firstModel(reqs []llmtest.Recorded) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[0].Model
}
