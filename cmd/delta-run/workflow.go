package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
)

// workflowTools returns the workflow's agent tools when the run is a
// workflow agent, or nil. The workflow runner says so through
// DELTA_WORKFLOW_DIR and DELTA_WORKFLOW_AGENT; the run records both in its
// metadata, so that a person continuing it later (to answer an approval,
// say) still gives it its tools. The identity comes from there alone:
// every call is made as that agent, whatever the model asks.
func workflowTools(runDir string, meta *runs.Metadata) (engine.Toolbox, error) {
	dir, name := os.Getenv(board.EnvDir), os.Getenv(board.EnvAgent)
	switch {
	case dir == "" && name == "":
		if meta.Workflow == nil {
			return nil, nil
		}
		dir, name = meta.Workflow.Dir, meta.Workflow.Agent
	case dir == "" || name == "":
		return nil, cli.Errorf(runs.ExitConfig, "the workflow runner sets both", "%s and %s go together: got only one", board.EnvDir, board.EnvAgent)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workflow context: %w", err)
	}
	p, err := board.OpenFile(abs, board.Config{})
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "start the workflow with delta workflow run/start, which creates its context", fmt.Errorf("workflow agent %s: %w", name, err))
	}
	if !board.ValidName(name) {
		p.Close()
		return nil, cli.Errorf(runs.ExitConfig, "", "workflow agent name %q: use a letter, then letters, digits, _ or -", name)
	}
	if w := (runs.WorkflowAgent{Dir: abs, Agent: name}); meta.Workflow == nil || *meta.Workflow != w {
		meta.Workflow = &w
		if err := writeMetadata(runDir, meta); err != nil {
			p.Close()
			return nil, err
		}
	}
	return board.Toolbox(p, name), nil
}
