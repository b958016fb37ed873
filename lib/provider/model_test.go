package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

func TestParseModel(t *testing.T) {
	for _, tt := range []struct{ in, name, arg string }{
		{"openai:gpt-4o", "openai", "gpt-4o"},
		{"openai/gpt-4o", "openai", "gpt-4o"},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"},
		{"openai:meta-llama/llama-3", "openai", "meta-llama/llama-3"},
		{"gemini/gemini-2.5-flash", "gemini", "gemini-2.5-flash"},
		{"scripted:dir/script.yaml", "scripted", "dir/script.yaml"},
		{"anthropic", "anthropic", ""},
		{"sonnet", "anthropic", "claude-sonnet-4-5"},
		{"gpt", "openai", "gpt-5"},
		{"flash", "gemini", "gemini-2.5-flash"},
	} {
		name, arg, err := provider.ParseModel(tt.in)
		if err != nil || name != tt.name || arg != tt.arg {
			t.Errorf("ParseModel(%q) = %q, %q, %v; want %q, %q", tt.in, name, arg, err, tt.name, tt.arg)
		}
	}
	for _, in := range []string{"gpt4", "scripted/x.yaml", "mistral/large", "openai/", ""} {
		if _, _, err := provider.ParseModel(in); !errors.Is(err, provider.ErrUnknownProvider) {
			t.Errorf("ParseModel(%q) error = %v, want ErrUnknownProvider", in, err)
		}
	}
}

func TestSplitModel(t *testing.T) {
	for _, tt := range []struct {
		in, name, model string
		ok              bool
	}{
		{"anthropic/claude-x", "anthropic", "claude-x", true},
		{"gemini:gemini-2.5-pro", "gemini", "gemini-2.5-pro", true},
		{"haiku", "anthropic", "claude-haiku-4-5", true},
		{"gpt-4o-mini", "", "gpt-4o-mini", false},
		{"meta-llama/llama-3", "", "meta-llama/llama-3", false},
	} {
		name, model, ok := provider.SplitModel(tt.in)
		if name != tt.name || model != tt.model || ok != tt.ok {
			t.Errorf("SplitModel(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, model, ok, tt.name, tt.model, tt.ok)
		}
	}
}

// TestGeminiKeyAndURLFromEnv: the gemini provider speaks the OpenAI wire
// to Gemini's compatible endpoint, with GEMINI_API_KEY.
func TestGeminiKeyAndURLFromEnv(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	p, err := provider.New(agent.LLMConfig{Provider: "gemini"}, map[string]string{"GEMINI_API_KEY": "gm-key", "GEMINI_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "gemini-2.5-flash"}})
	if err != nil || got.Content != "ok" {
		t.Fatalf("Complete = %+v, %v", got, err)
	}
	r := s.Requests()[0]
	if h := r.Header.Get("Authorization"); h != "Bearer gm-key" || r.Model != "gemini-2.5-flash" {
		t.Errorf("Authorization = %q, model %q; want Bearer gm-key and gemini-2.5-flash", h, r.Model)
	}
	if _, err := provider.New(agent.LLMConfig{Provider: "gemini"}, map[string]string{"OPENAI_API_KEY": "sk"}); !errors.Is(err, provider.ErrNoAPIKey) ||
		!strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("gemini without its key: %v, want ErrNoAPIKey naming GEMINI_API_KEY", err)
	}
}

// FuzzParseModel: any string either parses to a known provider or is
// ErrUnknownProvider; never a panic.
func FuzzParseModel(f *testing.F) {
	for _, s := range []string{"openai/gpt-4o", "anthropic:claude", "sonnet", "scripted:a:b", "x/y:z", "", "/", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, _, err := provider.ParseModel(s)
		if err != nil {
			if !errors.Is(err, provider.ErrUnknownProvider) {
				t.Errorf("ParseModel(%q) error %v is not ErrUnknownProvider", s, err)
			}
			return
		}
		known := false
		for _, p := range provider.Providers {
			known = known || p == name
		}
		if !known {
			t.Errorf("ParseModel(%q) = provider %q, not one of %v", s, name, provider.Providers)
		}
	})
}

// TestGeminiPlainSchemas: tool schemas reach Gemini without the keywords
// it refuses, at any depth, while a parameter of that name stays.
func TestGeminiPlainSchemas(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyText("ok")
	p, err := provider.New(agent.LLMConfig{Provider: "gemini"}, map[string]string{"GEMINI_API_KEY": "k", "GEMINI_BASE_URL": s.URL})
	if err != nil {
		t.Fatal(err)
	}
	params := json.RawMessage(`{"type":"object","$schema":"x","additionalProperties":false,"properties":{` +
		`"additionalProperties":{"type":"string"},"list":{"type":"array","items":{"type":"object","additionalProperties":false}}}}`)
	if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"},
		Tools: []llm.ToolSpec{{Name: "t", Description: "d", Parameters: params}}}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Function struct {
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(s.Requests()[0].Body, &body); err != nil || len(body.Tools) != 1 {
		t.Fatalf("request body: %v", err)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{
		"additionalProperties": map[string]any{"type": "string"},
		"list":                 map[string]any{"type": "array", "items": map[string]any{"type": "object"}}}}
	if diff := cmp.Diff(want, body.Tools[0].Function.Parameters); diff != "" {
		t.Errorf("parameters sent (-want +got):\n%s", diff)
	}
}
