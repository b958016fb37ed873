package host_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/plugins/host"
)

// BenchmarkPluginToolCall is one plugin tool call round trip (gRPC to a
// running plugin process), the process started once.
func BenchmarkPluginToolCall(b *testing.B) {
	h := newHost(b, installed(b), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hello"}`)
	b.ResetTimer()
	for b.Loop() {
		out, err := tb.Call(context.Background(), engine.RunInfo{WorkDir: "/"}, "c", "echo", args)
		if err != nil || out.IsError {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkCommandToolCall is the equivalent command tool call: one
// execute.Run of echo (a process per call, under the guard).
func BenchmarkCommandToolCall(b *testing.B) {
	for b.Loop() {
		res, err := execute.Run(context.Background(), execute.Spec{Argv: []string{"echo", `{"text":"hello"}`}, Dir: "/"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkPluginStart is starting a plugin process and listing its tools.
func BenchmarkPluginStart(b *testing.B) {
	dir := installed(b)
	for b.Loop() {
		h, err := host.New([]agent.PluginRef{{Name: "test"}}, host.Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Toolbox(context.Background()); err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}
