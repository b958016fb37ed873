package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/toolhost"
	"github.com/deltakit/delta/workflow/board"
)

// workflowTools returns the workflow's agent tools when the run is a
// workflow agent, or nil. The workflow runner says so through
// DELTA_WORKFLOW_DIR (or, for a board kept in a cluster,
// DELTA_WORKFLOW_CLUSTER and DELTA_WORKFLOW_INSTANCE) and
// DELTA_WORKFLOW_AGENT; the run records them in its metadata, so that a
// person continuing it later (to answer an approval, say) still gives it
// its tools. The identity comes from there alone: every call is made as
// that agent, whatever the model asks.
func workflowTools(ctx context.Context, o driveOpts) (engine.Toolbox, error) {
	w, err := workflowAgent(o.meta)
	if w == nil || err != nil {
		return nil, err
	}
	if !board.ValidName(w.Agent) {
		return nil, cli.Errorf(runs.ExitConfig, "", "workflow agent name %q: use a letter, then letters, digits, _ or -", w.Agent)
	}
	var tools engine.Toolbox
	if w.Cluster != "" {
		tools, err = clusterBoardTools(ctx, *w, o)
	} else {
		tools, err = fileBoardTools(*w)
	}
	if err != nil {
		return nil, err
	}
	if o.meta.Workflow == nil || *o.meta.Workflow != *w {
		o.meta.Workflow = w
		if err := writeMetadata(o.runDir, o.meta); err != nil {
			tools.Close()
			return nil, err
		}
	}
	return tools, nil
}

// workflowAgent is the workflow agent the run is: from the environment
// the runner sets, else from the run's metadata; nil when it is none.
func workflowAgent(meta *runs.Metadata) (*runs.WorkflowAgent, error) {
	dir, name := os.Getenv(board.EnvDir), os.Getenv(board.EnvAgent)
	url, instance := os.Getenv(board.EnvCluster), os.Getenv(board.EnvInstance)
	switch {
	case dir == "" && url == "" && name == "":
		return meta.Workflow, nil
	case name == "" || (dir == "") == (url == ""):
		return nil, cli.Errorf(runs.ExitConfig, "the workflow runner sets them", "a workflow agent is named by %s and either %s or %s with %s", board.EnvAgent, board.EnvDir, board.EnvCluster, board.EnvInstance)
	case url != "":
		if instance == "" {
			return nil, cli.Errorf(runs.ExitConfig, "the workflow runner sets both", "%s needs %s", board.EnvCluster, board.EnvInstance)
		}
		return &runs.WorkflowAgent{Cluster: url, Instance: instance, Agent: name}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workflow context: %w", err)
	}
	return &runs.WorkflowAgent{Dir: abs, Agent: name}, nil
}

// fileBoardTools opens the instance's files in this process.
func fileBoardTools(w runs.WorkflowAgent) (engine.Toolbox, error) {
	p, err := board.OpenFile(w.Dir, board.Config{})
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "start the workflow with delta workflow run/start, which creates its context", fmt.Errorf("workflow agent %s: %w", w.Agent, err))
	}
	return board.Toolbox(p, w.Agent), nil
}

// boardServer is the MCP server name of a cluster board's tools.
const boardServer = "workflow"

// clusterBoardTools reaches a board kept in a cluster through
// `delta-workflow mcp --cluster`, served by a tool host of its own, and
// offers its tools under their own names (channel_send, vote, …), as the
// file board's are: delta-run links no cluster code.
func clusterBoardTools(ctx context.Context, w runs.WorkflowAgent, o driveOpts) (engine.Toolbox, error) {
	exe, err := cli.FindCommand("delta-workflow")
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "install every delta binary together (make install, or the release archive): delta-workflow serves the tools of a workflow kept in a cluster", err)
	}
	args := []string{"mcp", "--cluster", w.Cluster, "--instance", w.Instance, "--as", w.Agent}
	if creds := os.Getenv("DELTA_CLUSTER_CREDS"); creds != "" {
		args = append(args, "--cluster-creds", creds)
	}
	srv := agent.MCPServer{Name: boardServer, Command: exe, Args: args, Source: board.EnvCluster}
	cfg := toolhost.Config{MCPServers: []agent.MCPServer{srv}, MCPEnviron: os.Environ(), ToolDir: o.meta.ToolDir(), Verbose: o.verbose}
	h, _, err := toolhost.Start(ctx, cfg, o.std.Err)
	if err != nil {
		return nil, fmt.Errorf("workflow agent %s of instance %s in cluster %s: %w", w.Agent, w.Instance, w.Cluster, err)
	}
	return unprefixed{h, boardServer + agent.MCPSeparator}, nil
}

// unprefixed offers an MCP server's tools without the server's prefix.
type unprefixed struct {
	engine.Toolbox
	prefix string
}

func (u unprefixed) Specs() []llm.ToolSpec {
	specs := u.Toolbox.Specs()
	for i := range specs {
		specs[i].Name = strings.TrimPrefix(specs[i].Name, u.prefix)
	}
	return specs
}

func (u unprefixed) Has(name string) bool { return u.Toolbox.Has(u.prefix + name) }

func (u unprefixed) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	return u.Toolbox.Call(ctx, run, callID, u.prefix+name, args)
}
