package main

import (
	"fmt"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// CheckJQCmd is the hidden `delta-context check-jq AGENT`: it compiles the
// jq generators of the agent's context.yaml, for delta-tool-expand
// --check, which does not link the context generators.
type CheckJQCmd struct {
	Agent string `arg:"" help:"Agent directory." type:"path"`
}

// Run prints each problem as file:line:col: message (and its hint) on
// stderr; exit 126 when there is one.
func (c *CheckJQCmd) Run(std cli.Stdio) error {
	a, err := agent.Load(c.Agent)
	if err != nil {
		return cli.WithCode(runs.ExitConfig, "", err)
	}
	problems := contextgen.CheckJQ(a)
	for _, p := range problems {
		fmt.Fprintln(std.Err, p.String())
		if p.Hint != "" {
			fmt.Fprintf(std.Err, "  hint: %s\n", p.Hint)
		}
	}
	if n := len(problems); n > 0 {
		return &cli.Error{Code: runs.ExitConfig, Err: fmt.Errorf("%d jq expression(s) do not compile", n), Silent: true}
	}
	return nil
}
