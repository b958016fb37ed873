package agent

import (
	"path"
	"regexp"
)

// Approval decisions.
const (
	ApproveAllow = "allow"
	ApproveDeny  = "deny"
	ApproveAsk   = "ask"
)

// ApprovalRule is one rule of agent.yaml's approval list as read (lib/approval
// applies the rules): calls of a tool whose name matches Tool (a glob; ""
// matches every tool) and, when Command is set, whose resolved command
// line matches it (a regular expression), get Decision, with Reason for
// the model and the human.
type ApprovalRule struct {
	Tool    string
	Command *regexp.Regexp
	// JQ, when set, is a jq expression over the call's arguments that must
	// be true for the rule to apply (lib/approval compiles and applies the
	// rules; jq is not linked here).
	JQ       string
	Decision string
	Reason   string
	// Line is the rule's line in agent.yaml, to name it in the journal.
	Line int
}

var approvalKeys = []string{"tool", "command", "jq", "decision", "reason"}

// decodeApproval reads the approval list.
func decodeApproval(d *doc, fa field) []ApprovalRule {
	var out []ApprovalRule
	for _, item := range d.list(fa, "approval") {
		f := d.fields(item, "approval rule", approvalKeys)
		r := ApprovalRule{Tool: d.str(f["tool"], "approval tool"), Decision: d.str(f["decision"], "approval decision"),
			Reason: d.str(f["reason"], "approval reason"), Line: item.Line}
		if _, err := path.Match(r.Tool, ""); err != nil {
			d.problem(f["tool"].value, ErrInvalid, "a glob such as write_* or *", "approval tool: bad glob %q: %v", r.Tool, err)
		}
		if c, ok := f["command"]; ok {
			re, err := regexp.Compile(d.str(c, "approval command"))
			if err != nil {
				d.problem(c.value, ErrInvalid, `a regular expression over the command line, such as '^rm\b'`, "approval command: %v", err)
			}
			r.Command = re
		}
		if j, ok := f["jq"]; ok {
			if r.JQ = d.str(j, "approval jq"); r.JQ == "" {
				d.problem(j.value, ErrInvalid, `a jq expression over the arguments, such as '.path | startswith("/")'`, "approval jq: empty expression")
			}
		}
		switch r.Decision {
		case ApproveAllow, ApproveDeny, ApproveAsk:
		default:
			at := item
			if v := f["decision"].value; v != nil {
				at = v
			}
			d.problem(at, ErrInvalid, "decision: allow, deny or ask", "approval rule: decision must be allow, deny or ask, not %q", r.Decision)
		}
		out = append(out, r)
	}
	return out
}
