package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/sandbox"
)

// sandboxEnv is the variable that sets the sandbox mode when --sandbox
// does not.
const sandboxEnv = "DELTA_SANDBOX"

// sandboxFlags are the sandbox option of run and continue.
type sandboxFlags struct {
	Sandbox string `help:"What the tools may write and connect to: read-only (write nowhere), workspace-write (write only in the workspace, the temp directory and sandbox.writable; no network unless sandbox.network allows it) or danger-full-access (no sandbox). Default: $$DELTA_SANDBOX, else the mode the run was started with (continue), else agent.yaml sandbox:, else danger-full-access. See delta-agent(5), SANDBOX." placeholder:"MODE"`
}

// policy is the run's sandbox: the agent's policy (or the one recorded
// when the run started, on continue) with its mode replaced by --sandbox,
// else $DELTA_SANDBOX, when given.
func (f sandboxFlags) policy(recorded, agentPolicy *sandbox.Policy) (sandbox.Policy, error) {
	p := sandbox.Policy{Mode: sandbox.DangerFullAccess}
	switch {
	case recorded != nil:
		p = *recorded
	case agentPolicy != nil:
		p = *agentPolicy
	}
	mode, what := f.Sandbox, "--sandbox"
	if mode == "" {
		mode, what = os.Getenv(sandboxEnv), sandboxEnv
	}
	if mode == "" {
		return p, nil
	}
	m, err := sandbox.ParseMode(mode)
	if err != nil {
		code := cli.ExitUsage
		if what == sandboxEnv {
			code = cli.ExitConfig
		}
		return p, cli.WithCode(code, "", fmt.Errorf("%s: %w", what, err))
	}
	p.Mode = m
	return p, nil
}

// sandboxRules resolves the run's sandbox, records it in the run's
// metadata (continue keeps it) and returns the rules its tools run under,
// nil for none. A sandbox the kernel cannot enforce stops the run here,
// before anything ran unconfined.
func (o driveOpts) sandboxRules() (*sandbox.Rules, error) {
	p, err := o.sandbox.policy(o.meta.Sandbox, o.agent.Sandbox)
	if err != nil {
		return nil, err
	}
	o.meta.Sandbox = &p
	rules, err := p.Rules(o.meta.WorkDir, o.runDir)
	if err != nil {
		return nil, cli.WithCode(cli.ExitConfig, "", fmt.Errorf("sandbox: %w", err))
	}
	if rules != nil {
		if err := sandbox.Supported(*rules); err != nil {
			hint := "run with --sandbox danger-full-access to run tools unconfined; delta doctor says what this kernel offers"
			if errors.Is(err, sandbox.ErrUnsupported) {
				return nil, cli.WithCode(cli.ExitConfig, hint, err)
			}
			return nil, err
		}
	}
	return rules, nil
}
