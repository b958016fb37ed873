package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
	"github.com/deltakit/delta/workflow/board"
)

// ValidateCmd checks a workflow file.
type ValidateCmd struct {
	File string `arg:"" help:"The workflow file." type:"path"`
}

// Run checks the file and the agents it names: an inline agent's generated
// agent.yaml (its tools) and an agent: directory are loaded as delta run
// would.
func (c *ValidateCmd) Run(std cli.Stdio) error {
	f, err := loadFile(c.File)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "delta-workflow-validate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var problems []agent.Problem
	for _, a := range f.Agents {
		if a.Backend != workflow.BackendDelta {
			continue
		}
		dir := a.Dir
		if dir == "" {
			dir = tmp + "/" + a.Name
			if err := a.Generate(dir, "(validation)"); err != nil {
				problems = append(problems, agent.Problem{File: f.Display, Msg: fmt.Sprintf("agent %s: %v", a.Name, err), Err: agent.ErrInvalid})
				continue
			}
		}
		if _, err := agent.Load(dir); err != nil {
			var le *agent.LoadError
			if !errors.As(err, &le) {
				problems = append(problems, agent.Problem{File: f.Display, Msg: fmt.Sprintf("agent %s: %v", a.Name, err), Err: err})
				continue
			}
			for _, p := range le.Problems {
				if a.Dir == "" {
					// The generated agent.yaml is not the user's file:
					// name the agent in the workflow file instead.
					p = agent.Problem{File: f.Display, Line: a.Line(), Col: a.Column(), Msg: fmt.Sprintf("agent %s: %s", a.Name, p.Msg), Hint: p.Hint, Err: p.Err}
				}
				problems = append(problems, p)
			}
		}
	}
	if len(problems) > 0 {
		le := &agent.LoadError{Problems: problems}
		return cli.WithCode(runs.ExitConfig, strings.Join(le.Hints(), "\n"), le)
	}
	var mentions []string
	if f.Kickoff.S != "" {
		mentions = board.Mentions(f.Kickoff.S, f.AgentNames())
	}
	fmt.Fprintf(std.Out, "%s: ok: workflow %s, %d %s (%s)", c.File, f.Name, len(f.Agents), plural(len(f.Agents), "agent", "agents"), strings.Join(f.AgentNames(), ", "))
	if len(f.Setup) > 0 {
		fmt.Fprintf(std.Out, ", %d setup %s", len(f.Setup), plural(len(f.Setup), "step", "steps"))
	}
	switch {
	case f.Kickoff.S == "":
		fmt.Fprint(std.Out, ", no kickoff")
	case len(mentions) == 0:
		fmt.Fprint(std.Out, ", a kickoff that mentions no agent")
	default:
		fmt.Fprintf(std.Out, ", kickoff for @%s", strings.Join(mentions, ", @"))
	}
	if !f.Context.Enabled {
		fmt.Fprint(std.Out, ", no shared context")
	}
	fmt.Fprintln(std.Out)
	var le *agent.LoadError
	if err := f.CheckEnv(nil); errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Fprintf(std.Err, "delta-workflow: warning: %s: run and start refuse to begin without it\n", p)
		}
	}
	if f.Kickoff.S != "" && len(mentions) == 0 {
		fmt.Fprintln(std.Err, "delta-workflow: warning: the kickoff mentions no agent: nothing starts until a message does (delta workflow send)")
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
