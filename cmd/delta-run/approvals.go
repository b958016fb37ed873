package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
)

// approvalFlags are the approval options of run and continue.
type approvalFlags struct {
	Approvals string        `help:"What a tool call that needs a human's approval gets: ask (pause the run with exit 101, or ask on the terminal with -i) or deny (refuse it at once and tell the model: for CI and batch runs). Default: $$DELTA_APPROVALS, else ask." placeholder:"ask|deny"`
	By        string        `help:"Who answers approvals in this invocation, as the journal records it (default: the user name)." placeholder:"NAME"`
	Timeout   time.Duration `name:"approval-timeout" help:"Instead of pausing, wait up to this long for an answer in interaction/response.txt (written by an orchestrator), and deny the call when none comes." placeholder:"DUR"`

	// userDefault is the user config's approvals ("" when not set).
	userDefault string
}

// approver is the agent's approval policy as the engine asks it; a rule's
// jq expression that does not compile is a configuration error.
func approver(a *agent.Agent) (*approval.Policy, error) {
	p, problems := approval.Compile(a)
	if len(problems) > 0 {
		return nil, cli.WithCode(runs.ExitConfig, problems[0].Hint, errors.New(problems[0].String()))
	}
	return p, nil
}

// mode is --approvals, else $DELTA_APPROVALS, else the user config's
// approvals, else ask.
func (f approvalFlags) mode() (string, error) {
	switch m := f.Approvals; m {
	case "ask", "deny":
		return m, nil
	case "":
	default:
		return "", cli.Errorf(cli.ExitUsage, "--approvals ask or --approvals deny", "--approvals must be ask or deny, not %q", m)
	}
	m := os.Getenv("DELTA_APPROVALS")
	if m == "" {
		m = f.userDefault
	}
	switch m {
	case "", "ask":
		return approval.ModeAsk, nil
	case "deny":
		return approval.ModeDeny, nil
	default:
		return "", cli.Errorf(runs.ExitConfig, "DELTA_APPROVALS=ask or DELTA_APPROVALS=deny (or unset it)", "DELTA_APPROVALS must be ask or deny, not %q", m)
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
func pendingApproval(runDir string) bool { return len(pendingCalls(runDir)) > 0 }

// pendingCalls returns the ids of the calls a run waits to have approved:
// none when it does not wait for an approval.
func pendingCalls(runDir string) []string {
	r, err := runs.ReadRequest(runDir)
	if err != nil {
		return nil
	}
	return r.Approvals()
}

// callChoice is --approve or --deny: alone it answers every call waiting;
// with CALL_ID (repeatable) only those calls.
type callChoice struct {
	All bool
	IDs []string
}

// Decode implements kong.MapperValue: the flag alone is a bool token,
// --approve=ID (or --approve ID, see optionalValues) a string.
func (c *callChoice) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		c.All = true // the flag alone
		return nil
	}
	token := ctx.Scan.Pop()
	switch v := token.Value.(type) {
	case bool:
		c.All = c.All || v
	case string:
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				c.IDs = append(c.IDs, id)
			}
		}
	default:
		return fmt.Errorf("expected a call id, not %v", token.Value)
	}
	return nil
}

// IsBool lets the flag stand alone.
func (c *callChoice) IsBool() bool { return true }

func (c callChoice) set() bool { return c.All || len(c.IDs) > 0 }

// optionalValues rewrites "--approve CALL_ID" as "--approve=CALL_ID" (and
// the same for --deny): the flags take an optional value, which the
// command-line parser only reads after "=". continue has no positional
// arguments, so a word after them can only be their value.
func optionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--approve" || a == "--deny") && i+1 < len(args) && args[i+1] != "" && !strings.HasPrefix(args[i+1], "-") {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}

// approvalAnswer is the response.txt of continue --approve / --deny:
// "approved" or "denied: REASON" for every call waiting, or a line
// "CALL_ID: ANSWER" per call named.
//
// ids are the calls waiting (pendingCalls): none when the run does not
// wait for an approval.
func (c *ContinueCmd) approvalAnswer(ids []string, runDir string) (string, error) {
	if !c.Approve.set() && !c.Deny.set() {
		return "", nil
	}
	if c.Approve.All && c.Deny.set() || c.Deny.All && c.Approve.set() {
		return "", cli.Errorf(cli.ExitUsage, "--approve CALL_ID --deny CALL_ID answers calls one by one", "give --approve or --deny for every call, not both")
	}
	if len(ids) == 0 {
		return "", cli.Errorf(runs.ExitConfig, fmt.Sprintf("see what it waits for: cat %s", filepath.Join(runDir, runs.InteractionDir, runs.RequestFile)),
			"run %s does not wait for an approval", c.RunID)
	}
	if c.Message != "" && !c.Deny.set() {
		return "", cli.Errorf(cli.ExitUsage, "-m gives the reason of --deny", "--approve takes no -m")
	}
	denied := "denied"
	if c.Message != "" {
		denied = "denied: " + c.Message
	}
	switch {
	case c.Approve.All:
		return "approved", nil
	case c.Deny.All:
		return denied, nil
	}
	waiting := map[string]bool{}
	for _, id := range ids {
		waiting[id] = true
	}
	var lines []string
	for _, ch := range []struct {
		ids    []string
		answer string
	}{{c.Approve.IDs, "approved"}, {c.Deny.IDs, denied}} {
		for _, id := range ch.ids {
			if !waiting[id] {
				return "", cli.Errorf(runs.ExitConfig, "the calls waiting: "+strings.Join(ids, ", "), "run %s has no call %s waiting for an approval", c.RunID, id)
			}
			lines = append(lines, id+": "+ch.answer)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// approvalBanner tells how to answer a run paused for approvals.
func approvalBanner(w io.Writer, q *engine.Interaction, id, ws, resp string) {
	cont := fmt.Sprintf("delta continue --run-id %s -w %s", id, ws)
	if len(q.Pending) < 2 {
		fmt.Fprintf(w, "Agent paused for an approval: %s\nApprove: %s --approve\nDeny:    %s --deny -m <reason>\nOr write approved / denied: <reason> to %s and run %s\n",
			q.Prompt, cont, cont, resp, cont)
		return
	}
	fmt.Fprintf(w, "Agent paused for %d approvals:\n", len(q.Pending))
	for _, p := range q.Pending {
		fmt.Fprintf(w, "  %s: %s\n", p.CallID, p.Prompt)
	}
	fmt.Fprintf(w, "Approve all: %s --approve\nDeny all:    %s --deny -m <reason>\nOne by one:  %s --approve CALL_ID (or --deny CALL_ID -m <reason>)\nOr write a line CALL_ID: approved (or CALL_ID: denied: <reason>) per call to %s and run %s\n",
		cont, cont, cont, resp, cont)
}
