package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

const helloScript = `turns:
  - content: "I'll write the greeting."
    tool_calls:
      - name: write_file
        args: {path: hello.txt, content: "Hello, world"}
      - name: list_files
  - content: "Done: hello.txt written."
    usage: {input_tokens: 120, output_tokens: 7}
`

func writeScript(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScriptedTurns(t *testing.T) {
	path := writeScript(t, helloScript)
	p, err := provider.NewScripted(path)
	if err != nil {
		t.Fatalf("NewScripted: %v", err)
	}
	req := llm.Request{Params: llm.Params{Model: "m1"}, Messages: []llm.Message{{Role: "user", Content: strings.Repeat("x", 400)}}}
	tests := []struct {
		name string
		turn int
		want llm.Response
	}{
		{"tool calls with estimated usage", 0, llm.Response{
			Content: "I'll write the greeting.",
			ToolCalls: []llm.ToolCall{
				{ID: "call_0_0", Name: "write_file", Arguments: `{"content":"Hello, world","path":"hello.txt"}`},
				{ID: "call_0_1", Name: "list_files", Arguments: `{}`},
			},
			Usage:        llm.Usage{InputTokens: 100, OutputTokens: 22},
			Model:        "m1",
			FinishReason: "tool_calls",
		}},
		{"text with explicit usage", 1, llm.Response{
			Content: "Done: hello.txt written.", Usage: llm.Usage{InputTokens: 120, OutputTokens: 7},
			Model: "m1", FinishReason: "stop",
		}},
		// Asking for the same turn again gives the same answer: the
		// provider is stateless, which is what makes resume work.
		{"turn 0 again", 0, llm.Response{
			Content: "I'll write the greeting.",
			ToolCalls: []llm.ToolCall{
				{ID: "call_0_0", Name: "write_file", Arguments: `{"content":"Hello, world","path":"hello.txt"}`},
				{ID: "call_0_1", Name: "list_files", Arguments: `{}`},
			},
			Usage: llm.Usage{InputTokens: 100, OutputTokens: 22}, Model: "m1", FinishReason: "tool_calls",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req
			r.Turn = tt.turn
			got, err := p.Complete(context.Background(), r)
			if err != nil {
				t.Fatalf("Complete(turn %d): %v", tt.turn, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Complete(turn %d) mismatch (-want +got):\n%s", tt.turn, diff)
			}
		})
	}
}

func TestScriptedExhausted(t *testing.T) {
	path := writeScript(t, helloScript)
	p, err := provider.NewScripted(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), llm.Request{Turn: 2})
	if !errors.Is(err, provider.ErrScriptExhausted) {
		t.Fatalf("Complete(turn 2) error = %v, want ErrScriptExhausted", err)
	}
	want := "scripted provider: no turn 3 in " + path + " (it has 2; iteration N replays turn N)"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestScriptedCancelled(t *testing.T) {
	p, err := provider.NewScripted(writeScript(t, helloScript))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Complete(ctx, llm.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Complete(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestScriptedMissingFile(t *testing.T) {
	_, err := provider.NewScripted(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NewScripted(missing) error = %v, want os.ErrNotExist", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "file is empty"},
		{"no turns", "turns: []\n", "no turns"},
		{"unknown top key", "turns:\n  - content: hi\nmodel: x\n", "line 3: field model not found"},
		{"unknown turn key", "turns:\n  - content: hi\n    contnet: typo\n", "line 3: field contnet not found"},
		{"unknown call key", "turns:\n  - tool_calls:\n      - name: a\n        arguments: {}\n", "line 4: field arguments not found"},
		{"empty turn", "turns:\n  - content: hi\n  - {}\n", "line 3: turn 2 has neither content nor tool_calls"},
		{"nameless call", "turns:\n  - tool_calls:\n      - args: {a: 1}\n", "turn 1 tool call 1 has no name"},
		{"args not mapping", "turns:\n  - tool_calls:\n      - name: a\n        args: [1, 2]\n", "line 4: turn 1 tool call \"a\": args must be a mapping"},
		{"args non-string keys", "turns:\n  - tool_calls:\n      - name: a\n        args: {1: {2: x}}\n", "args"},
		{"bad usage type", "turns:\n  - content: hi\n    usage: {input_tokens: lots}\n", "line 3"},
		{"negative usage", "turns:\n  - content: hi\n    usage: {input_tokens: -1}\n", "usage must not be negative"},
		{"turns not a list", "turns: hello\n", "line 1"},
		{"two documents", "turns:\n  - content: a\n---\nturns:\n  - content: b\n", "more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.ParseScript([]byte(tt.text))
			if !errors.Is(err, provider.ErrBadScript) {
				t.Fatalf("ParseScript(%q) error = %v, want ErrBadScript", tt.text, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseScript(%q) error = %q, want it to contain %q", tt.text, err, tt.want)
			}
		})
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add([]byte(helloScript))
	f.Add([]byte("turns:\n  - content: hi\n"))
	f.Add([]byte("turns:\n  - tool_calls:\n      - name: a\n        args: {x: [1, {y: z}]}\n"))
	f.Add([]byte("turns: [{usage: {input_tokens: 1}}]"))
	f.Add([]byte("{{{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		turns, err := provider.ParseScript(data)
		if err != nil {
			if !errors.Is(err, provider.ErrBadScript) {
				t.Fatalf("ParseScript error %v is not ErrBadScript", err)
			}
			return
		}
		if len(turns) == 0 {
			t.Fatal("ParseScript accepted a script without turns")
		}
		for i, r := range turns {
			if r.Content == "" && len(r.ToolCalls) == 0 {
				t.Fatalf("turn %d is empty", i)
			}
			for _, c := range r.ToolCalls {
				if c.Name == "" || !json.Valid([]byte(c.Arguments)) {
					t.Fatalf("turn %d has bad call %+v", i, c)
				}
			}
		}
	})
}

// Arguments keep & < > as written: people read them in the live stream
// and the journal.
func TestScriptedArgsNotHTMLEscaped(t *testing.T) {
	path := writeScript(t, "turns:\n  - tool_calls:\n      - name: run\n        args: {cmd: \"make && ./a < in > out\"}\n")
	p, err := provider.NewScripted(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Complete(context.Background(), llm.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cmd":"make && ./a < in > out"}`; r.ToolCalls[0].Arguments != want {
		t.Errorf("Arguments = %s, want %s", r.ToolCalls[0].Arguments, want)
	}
}
