// Package approval decides whether a tool call may run, is refused, or
// needs a human first (seeds/003): agent.yaml's approval rules, matched by
// tool name, command line and (with jq) arguments; the verdict a rule or a
// pre_tool_execution hook gives; and the fail-closed rule, one for every
// way a call is made.
//
// The rules are read from agent.yaml by lib/agent (which reports their
// problems with file:line); this package compiles and applies them. It
// links gojq for the rules' jq conditions, so lib/agent, which every
// binary links, does not.
//
// The fail-closed rule: whatever cannot be decided is never let through.
// A rule's jq expression that fails on a call holds when the rule denies
// or asks and not when it allows; and a verdict that needs a human (a
// rule's or a hook's ask) is a denial when nobody can answer (--approvals
// deny, DELTA_APPROVALS=deny, an MCP client that cannot be asked): the
// call does not run, the model is told why, the decision is journaled and
// the run goes on.
package approval

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
)

// Verdict is the answer for one call: agent.ApproveAllow, ApproveDeny or
// ApproveAsk, why, and what decided (for the journal and the human).
type Verdict struct {
	Decision string
	Reason   string
	Rule     string
}

// Allow is the verdict of a call nothing stops.
var Allow = Verdict{Decision: agent.ApproveAllow}

// HookRule names the pre_tool_execution hook as what decided a verdict.
const HookRule = "the pre_tool_execution hook"

// FromHook is the verdict of a pre_tool_execution hook that answered ask.
func FromHook(reason string) Verdict {
	return Verdict{Decision: agent.ApproveAsk, Reason: reason, Rule: HookRule}
}

// What a verdict that needs a human gets (--approvals, DELTA_APPROVALS).
const (
	ModeAsk  = "ask"  // a human is asked (a pause, the terminal, an MCP client)
	ModeDeny = "deny" // nobody will answer: such a call is denied at once
)

// NoHuman is why a call is denied under ModeDeny in a run.
const NoHuman = "approvals are off: --approvals deny"

// FailClosed applies the fail-closed rule: under ModeDeny a verdict that
// needs a human is a denial, its reason saying so (why: who cannot
// answer, such as NoHuman). Other verdicts are returned as they are.
func (v Verdict) FailClosed(mode, why string) Verdict {
	if v.Decision != agent.ApproveAsk || mode != ModeDeny {
		return v
	}
	v.Decision = agent.ApproveDeny
	v.Reason = strings.TrimSpace(v.Reason + " (it needs a human's approval, and " + why + ")")
	return v
}

// MatchesTool reports whether rule r's tool glob matches tool ("" matches
// every tool).
func MatchesTool(r agent.ApprovalRule, tool string) bool {
	if r.Tool == "" {
		return true
	}
	ok, _ := path.Match(r.Tool, tool)
	return ok
}

// matches reports whether rule r applies to a call of tool whose command
// line is command ("" for a tool that is not a command), jq aside.
func matches(r agent.ApprovalRule, tool, command string) bool {
	return MatchesTool(r, tool) && (r.Command == nil || r.Command.MatchString(command))
}

// RuleName names rule r for messages and the journal.
func RuleName(r agent.ApprovalRule) string {
	return fmt.Sprintf("agent.yaml approval rule at line %d", r.Line)
}

// HasJQ reports whether one of a's approval rules has a jq condition.
func HasJQ(a *agent.Agent) bool {
	for _, r := range a.Approval {
		if r.JQ != "" {
			return true
		}
	}
	return false
}

// ParseAnswer reads a human's answer to an approval: "approved" (or
// approve, yes, y) approves; anything else denies, "denied: REASON" with
// that reason.
func ParseAnswer(answer string) (approved bool, reason string) {
	a := strings.TrimSpace(answer)
	switch strings.ToLower(a) {
	case "approved", "approve", "yes", "y":
		return true, ""
	case "denied", "deny", "no", "n", "":
		return false, ""
	}
	for _, p := range []string{"denied:", "deny:", "no:"} {
		if len(a) >= len(p) && strings.EqualFold(a[:len(p)], p) {
			return false, strings.TrimSpace(a[len(p):])
		}
	}
	return false, a
}

// noAnswerPrefix starts the reason of a call denied because nobody
// answered in time.
const noAnswerPrefix = "no answer within "

// Unanswered is the answer recorded for a call whose approval got no
// answer within d (--approval-timeout): a denial that nobody decided,
// so it names no one.
func Unanswered(d time.Duration) string { return "denied: " + noAnswerPrefix + d.String() }

// IsUnanswered reports whether a denial's reason (ParseAnswer) says
// nobody answered in time.
func IsUnanswered(reason string) bool { return strings.HasPrefix(reason, noAnswerPrefix) }
