package provider_test

import (
	"errors"
	"testing"

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
