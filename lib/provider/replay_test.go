package provider_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

func TestReplay(t *testing.T) {
	runDir := t.TempDir()
	dir := filepath.Join(runDir, "io", "invocations")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	records := map[string]string{
		// A failed call, then the answer of iteration 1.
		"20260101T000000.000000000Z_1.json": `{"iteration":1,"request":{"params":{"model":"m"},"messages":[]},"error":"HTTP 500"}`,
		"20260101T000001.000000000Z_1.json": `{"iteration":1,"request":{"params":{"model":"m"},"messages":[]},"response":{"content":"","tool_calls":[{"id":"c1","name":"ls","arguments":"{\"dir\": \".\"}"}],"usage":{"input_tokens":1,"output_tokens":1}}}`,
	}
	for name, body := range records {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := provider.NewReplay(runDir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Complete(context.Background(), llm.Request{Turn: 0})
	if err != nil || len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != "ls" {
		t.Fatalf("iteration 1 = %+v, %v", got, err)
	}
	// Iteration 2 has no recording; the calls so far match (spacing aside).
	msgs := []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "x", Name: "ls", Arguments: `{"dir":"."}`}}}}
	_, err = p.Complete(context.Background(), llm.Request{Turn: 1, Messages: msgs})
	if err == nil || !strings.Contains(err.Error(), "no recorded answer for iteration 2 (its last is 1)") {
		t.Errorf("iteration 2: %v", err)
	}
	// A request with calls the recording did not make diverges.
	if _, err := p.Complete(context.Background(), llm.Request{Turn: 0, Messages: msgs}); !errors.Is(err, provider.ErrDiverged) {
		t.Errorf("diverging request: %v", err)
	}
	if _, err := provider.NewReplay(t.TempDir()); err == nil {
		t.Error("a directory without records replays")
	}
}
