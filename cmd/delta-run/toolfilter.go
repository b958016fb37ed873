package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
)

// toolFilter is the run's toolbox narrowed by --allowed-tools and
// --disallowed-tools: the model is offered only the tools that pass, and a
// call of another is an unknown tool to the engine. It resolves command
// lines as the toolbox it wraps does, for hooks and approvals.
type toolFilter struct {
	engine.Toolbox
	allowed, disallowed []string
}

// filterTools wraps box when a list is given, and warns on stderr about a
// pattern that matches none of its tools (a typo would otherwise silently
// offer nothing, or hide nothing).
func filterTools(box engine.Toolbox, allowed, disallowed []string, stderr io.Writer) engine.Toolbox {
	if len(allowed) == 0 && len(disallowed) == 0 {
		return box
	}
	names := []string{}
	for _, s := range box.Specs() {
		names = append(names, s.Name)
	}
	for _, list := range []struct {
		flag     string
		patterns []string
	}{{"--allowed-tools", allowed}, {"--disallowed-tools", disallowed}} {
		for _, p := range list.patterns {
			if !matchesAny(p, names) {
				fmt.Fprintf(stderr, "delta-run: warning: %s %s matches none of the agent's tools (%d tools; delta tool expand lists them)\n", list.flag, p, len(names))
			}
		}
	}
	return &toolFilter{Toolbox: box, allowed: allowed, disallowed: disallowed}
}

// passes reports whether the model may see and call the tool name.
func (f *toolFilter) passes(name string) bool {
	if len(f.allowed) > 0 && !matchOne(f.allowed, name) {
		return false
	}
	return !matchOne(f.disallowed, name)
}

// Specs is the wrapped toolbox's tools that pass.
func (f *toolFilter) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, s := range f.Toolbox.Specs() {
		if f.passes(s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Has reports a tool that passes.
func (f *toolFilter) Has(name string) bool { return f.passes(name) && f.Toolbox.Has(name) }

// Call calls a tool that passes; the engine asks Has first.
func (f *toolFilter) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	if !f.passes(name) {
		return engine.ToolOutcome{}, fmt.Errorf("tool %q is not allowed in this run (--allowed-tools, --disallowed-tools)", name)
	}
	return f.Toolbox.Call(ctx, run, callID, name, args)
}

// Resolve passes to the wrapped toolbox when it resolves.
func (f *toolFilter) Resolve(name string, args json.RawMessage) (string, bool) {
	if r, ok := f.Toolbox.(engine.Resolver); ok && f.passes(name) {
		return r.Resolve(name, args)
	}
	return "", false
}

// Unsandboxed passes to the wrapped toolbox (engine.Escalator) for a
// tool that passes.
func (f *toolFilter) Unsandboxed(name string) (engine.Toolbox, bool) {
	if x, ok := f.Toolbox.(engine.Escalator); ok && f.passes(name) {
		return x.Unsandboxed(name)
	}
	return nil, false
}

// matchOne reports whether name matches one of the patterns (names or
// path.Match globs).
func matchOne(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// matchesAny reports whether pattern matches one of names.
func matchesAny(pattern string, names []string) bool {
	for _, n := range names {
		if matchOne([]string{pattern}, n) {
			return true
		}
	}
	return false
}
