package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
)

// approvalFlags are the approval options of run and continue.
type approvalFlags struct {
	Approvals string        `help:"What a tool call that needs a human's approval gets: ask (pause the run with exit 101, or ask on the terminal with -i) or deny (refuse it at once and tell the model: for CI and batch runs). Default: $$DELTA_APPROVALS, else ask." placeholder:"ask|deny"`
	By        string        `help:"Who answers approvals in this invocation, as the journal records it (default: the user name)." placeholder:"NAME"`
	Timeout   time.Duration `name:"approval-timeout" help:"Instead of pausing, wait up to this long for an answer in interaction/response.txt (written by an orchestrator), and deny the call when none comes." placeholder:"DUR"`
}

// approver is the agent's approval policy as the engine asks it.
func approver(a *agent.Agent) engine.ApprovalPolicy {
	if len(a.Approval) == 0 {
		return nil
	}
	return func(tool, command string) engine.Verdict {
		r := a.Approve(tool, command)
		if r == nil {
			return engine.Verdict{Decision: engine.DecisionAllow}
		}
		return engine.Verdict{Decision: r.Decision, Reason: r.Reason, Rule: r.Name()}
	}
}

// mode is --approvals, else $DELTA_APPROVALS, else ask.
func (f approvalFlags) mode() (string, error) {
	switch m := f.Approvals; m {
	case "ask", "deny":
		return m, nil
	case "":
	default:
		return "", cli.Errorf(cli.ExitUsage, "--approvals ask or --approvals deny", "--approvals must be ask or deny, not %q", m)
	}
	switch m := os.Getenv("DELTA_APPROVALS"); m {
	case "", "ask":
		return engine.ApprovalsAsk, nil
	case "deny":
		return engine.ApprovalsDeny, nil
	default:
		return "", cli.Errorf(cli.ExitConfig, "DELTA_APPROVALS=ask or DELTA_APPROVALS=deny (or unset it)", "DELTA_APPROVALS must be ask or deny, not %q", m)
	}
}

// answerer is who answers approvals: --by, else the user name ($USER,
// else the user database).
func (f approvalFlags) answerer() string {
	if f.By != "" {
		return f.By
	}
	if name := os.Getenv("USER"); name != "" {
		return name // no need to read the user database at every start
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// pendingApproval reports whether the run waits for an approval (its
// interaction/request.json is one).
func pendingApproval(runDir string) bool {
	data, err := os.ReadFile(filepath.Join(runDir, engine.InteractionDir, engine.RequestFile))
	if err != nil {
		return false
	}
	var req struct {
		InputType string `json:"input_type"`
	}
	return json.Unmarshal(data, &req) == nil && req.InputType == engine.InputApproval
}

// approvalAnswer is the response.txt of continue --approve / --deny.
func (c *ContinueCmd) approvalAnswer(runDir string) (string, error) {
	if !c.Approve && !c.Deny {
		return "", nil
	}
	if c.Approve && c.Deny {
		return "", cli.Errorf(cli.ExitUsage, "", "give --approve or --deny, not both")
	}
	if !pendingApproval(runDir) {
		return "", cli.Errorf(cli.ExitConfig, fmt.Sprintf("see what it waits for: cat %s", filepath.Join(runDir, engine.InteractionDir, engine.RequestFile)),
			"run %s does not wait for an approval", c.RunID)
	}
	if c.Approve {
		if c.Message != "" {
			return "", cli.Errorf(cli.ExitUsage, "-m gives the reason of --deny", "--approve takes no -m")
		}
		return "approved", nil
	}
	if c.Message == "" {
		return "denied", nil
	}
	return "denied: " + c.Message, nil
}
