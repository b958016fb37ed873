package sandbox

import (
	"fmt"
	"os"
)

// Env is the variable that sets the sandbox mode when no flag does.
const Env = "DELTA_SANDBOX"

// LandlockNetEnv, set to "off", makes the sandbox act as on a kernel whose
// Landlock cannot filter TCP (before Linux 6.7): the network is confined
// by a network namespace instead. It is for testing that fallback.
const LandlockNetEnv = "DELTA_SANDBOX_LANDLOCK_NET"

// Resolve is the sandbox a run's tools get: the first non-nil of
// policies (the one a run recorded when it started, the agent's), else
// danger-full-access, with its mode replaced by flag (--sandbox) or else
// $DELTA_SANDBOX when either is set. Its writable paths and network stay.
func Resolve(flag string, policies ...*Policy) (Policy, error) {
	p := Policy{Mode: DangerFullAccess}
	for _, q := range policies {
		if q != nil {
			p = *q
			break
		}
	}
	mode, what := flag, "--sandbox"
	if mode == "" {
		mode, what = os.Getenv(Env), Env
	}
	if mode == "" {
		return p, nil
	}
	m, err := ParseMode(mode)
	if err != nil {
		return p, fmt.Errorf("%s: %w", what, err)
	}
	p.Mode = m
	return p, nil
}

// For is the rules of the sandbox Resolve gives for a run in workspace
// with its records in runDir, checked against what the kernel can
// enforce; nil for danger-full-access.
func For(flag, workspace, runDir string, policies ...*Policy) (Policy, *Rules, error) {
	p, err := Resolve(flag, policies...)
	if err != nil {
		return p, nil, err
	}
	r, err := p.Rules(workspace, runDir)
	if err != nil {
		return p, nil, fmt.Errorf("sandbox: %w", err)
	}
	if r != nil {
		if err := Settle(r); err != nil {
			return p, nil, err
		}
	}
	return p, r, nil
}
