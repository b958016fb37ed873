package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
	"github.com/deltakit/delta/subagent"
	"github.com/deltakit/delta/workflow/board"
)

// subagentFlags are the hidden flags with which a run's spawn_agent starts
// a child run (package subagent): its parent and its place in the tree,
// recorded in its metadata.json so that continue keeps them.
type subagentFlags struct {
	ParentRunID string `name:"parent-run-id" hidden:"" help:"Set by spawn_agent, not for direct use: the run that spawned this one." placeholder:"ID"`
	Depth       int    `name:"subagent-depth" hidden:"" help:"Set by spawn_agent: the run's depth below its top-level run."`
	MaxDepth    int    `name:"subagent-max-depth" hidden:"" help:"Set by spawn_agent: the depth limit inherited from the parent."`
	Dir         string `name:"subagent-dir" hidden:"" help:"Set by spawn_agent: the subdirectory of the workspace the run's tools work in." placeholder:"DIR"`
}

// apply records the flags in the new run's metadata.
func (f subagentFlags) apply(m *runs.Metadata) error {
	if f.ParentRunID == "" {
		if f.Depth != 0 || f.MaxDepth != 0 || f.Dir != "" {
			return cli.Errorf(cli.ExitUsage, "", "--subagent-depth, --subagent-max-depth and --subagent-dir need --parent-run-id")
		}
		return nil
	}
	if err := runs.ValidateID(f.ParentRunID); err != nil {
		return cli.WithCode(cli.ExitUsage, "", fmt.Errorf("--parent-run-id: %w", err))
	}
	if f.Depth < 1 || f.MaxDepth < f.Depth {
		return cli.Errorf(cli.ExitUsage, "", "--subagent-depth must be at least 1 and at most --subagent-max-depth (got %d and %d)", f.Depth, f.MaxDepth)
	}
	dir := filepath.Clean(f.Dir)
	if f.Dir != "" {
		if filepath.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, ".."+string(filepath.Separator)) {
			return cli.Errorf(cli.ExitUsage, "", "--subagent-dir must be a subdirectory of the workspace, not %s", f.Dir)
		}
		if fi, err := os.Stat(filepath.Join(m.WorkDir, dir)); err != nil || !fi.IsDir() {
			return cli.Errorf(runs.ExitConfig, "", "--subagent-dir %s is not a directory of the workspace %s", f.Dir, m.WorkDir)
		}
	} else {
		dir = ""
	}
	m.ParentRunID = f.ParentRunID
	m.Subagent = &runs.Subagent{Depth: f.Depth, MaxDepth: f.MaxDepth, Dir: dir}
	return nil
}

// subagentTools is the run's spawn_agent, send_input, wait and
// close_agent (agent.yaml subagents:). Children run this same binary with
// the engine's environment and the provider settings it read from .env
// files: the provider's keys reach their engines without passing through
// any tool. A tool of the agent's own with one of their names hides it
// (local tools win), which is worth a warning.
func subagentTools(ctx context.Context, o driveOpts, local engine.Toolbox) (engine.Toolbox, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("subagents: find delta-run: %w", err)
	}
	for _, name := range tool.SubagentNames {
		if local.Has(name) {
			fmt.Fprintf(o.std.Err, "delta-run: warning: the agent's tool %s hides the subagents tool of that name; rename it\n", name)
		}
	}
	env := o.providerEnv
	if env == nil {
		env = os.Environ()
	}
	// A workflow agent's children are its helpers, not the agent: they do
	// not speak on the workflow's channel in its name.
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, board.EnvDir+"=") || strings.HasPrefix(kv, board.EnvAgent+"=")
	})
	if o.meta.Sandbox != nil {
		// Children run under the parent's sandbox mode (sandboxFlags).
		env = append(env, sandboxEnv+"="+string(o.meta.Sandbox.Mode))
	}
	return subagent.New(ctx, subagent.Options{Config: o.agent.Subagents, Run: o.meta, RunDir: o.runDir,
		Binary: bin, Env: env, LLM: o.meta.LLM}), nil
}

// runDepth is the run's depth in its tree (0 for a top-level run), which
// its tools see as DELTA_DEPTH.
func runDepth(o driveOpts) int {
	depth, _ := subagent.Depth(o.meta, o.agent.Subagents)
	return depth
}
