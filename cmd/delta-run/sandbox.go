package main

import (
	"errors"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
)

// sandboxEnv is the variable that sets the sandbox mode when --sandbox
// does not.
const sandboxEnv = sandbox.Env

// sandboxFlags are the sandbox option of run and continue.
type sandboxFlags struct {
	Sandbox string `help:"What the tools may write and connect to: read-only (write nowhere), workspace-write (write only in the workspace, the temp directory and sandbox.writable; no network unless sandbox.network allows it) or danger-full-access (no sandbox). Default: $$DELTA_SANDBOX, else the mode the run was started with (continue), else agent.yaml sandbox:, else danger-full-access. See delta-agent(5), SANDBOX." placeholder:"MODE"`
}

// sandboxRules resolves the run's sandbox (sandbox.Resolve: --sandbox,
// $DELTA_SANDBOX, the mode recorded when the run started, the agent's),
// records it in the run's metadata (continue keeps it) and returns the
// rules its tools run under, nil for none. A sandbox the kernel cannot
// enforce stops the run here, before anything ran unconfined.
func (o driveOpts) sandboxRules() (*sandbox.Rules, error) {
	p, rules, err := sandbox.For(o.sandbox.Sandbox, o.meta.WorkDir, o.runDir, o.meta.Sandbox, o.agent.Sandbox)
	switch {
	case errors.Is(err, sandbox.ErrUnsupported):
		return nil, cli.WithCode(runs.ExitConfig, "run with --sandbox danger-full-access to run tools unconfined; delta doctor says what this kernel offers", err)
	case err != nil && o.sandbox.Sandbox != "":
		return nil, cli.WithCode(cli.ExitUsage, "", err)
	case err != nil:
		return nil, cli.WithCode(runs.ExitConfig, "", err)
	}
	o.meta.Sandbox = &p
	return rules, nil
}
