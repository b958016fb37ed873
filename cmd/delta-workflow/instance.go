package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
	"github.com/deltakit/delta/workflow/board"
)

// instanceDir is where instance's files are: dir when given (--dir), else
// .workflow/<instance> under the current directory, else the directory
// the instance of that name working here was registered with (its
// context.config.dir or --dir). The context subcommands find an instance
// the same way.
func instanceDir(dir, instance string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	if instance == "" {
		instance = "default"
	}
	if err := workflow.ValidateInstance(instance); err != nil {
		return "", cli.WithCode(cli.ExitUsage, "", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if d := workflow.FindInstance(wd, instance); d != "" {
		return d, nil
	}
	return board.InstanceDir(wd, instance), nil
}

// target is agent@instance, @instance or agent (instance default).
type target struct {
	Agent, Instance string
}

func (t target) String() string { return t.Agent + "@" + t.Instance }

// parseTarget reads a target; def is the instance when none is named.
func parseTarget(s, def string) (target, error) {
	agent, inst, found := strings.Cut(s, "@")
	if !found {
		inst = def
	}
	if inst == "" {
		inst = "default"
	}
	if agent != "" && !board.ValidName(agent) {
		return target{}, cli.Errorf(cli.ExitUsage, "a target is AGENT@INSTANCE, @INSTANCE or AGENT (instance default)", "invalid agent name %q in %q", agent, s)
	}
	if err := workflow.ValidateInstance(inst); err != nil {
		return target{}, cli.WithCode(cli.ExitUsage, "a target is AGENT@INSTANCE, @INSTANCE or AGENT (instance default)", err)
	}
	return target{Agent: agent, Instance: inst}, nil
}

// noInstance is the error for an instance directory without a workflow.
func noInstance(dir string) error {
	return cli.Errorf(runs.ExitFailed, "start one with: delta workflow run FILE --instance NAME (or delta workflow start); delta workflow list shows the instances here",
		"no workflow instance in %s", dir)
}

// openInstance opens an existing instance's shared context.
func openInstance(dir string) (board.Provider, error) {
	if _, err := os.Stat(filepath.Join(dir, workflow.RunnerDir, workflow.StateFile)); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, board.ConfigFile)); err2 != nil {
			return nil, noInstance(dir)
		}
	}
	if st, err := workflow.ReadState(dir); err == nil && st.Cluster != "" {
		return openClusterInstance(clusterBoard{Cluster: st.Cluster, ClusterCreds: os.Getenv("DELTA_CLUSTER_CREDS")}, st.Instance)
	}
	p, err := board.OpenFile(dir, board.Config{})
	if err != nil {
		return nil, fmt.Errorf("open instance %s: %w", dir, err)
	}
	return p, nil
}
