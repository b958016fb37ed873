package approval

import (
	"regexp"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/google/go-cmp/cmp"
)

func TestParseAnswer(t *testing.T) {
	for answer, want := range map[string]struct {
		ok     bool
		reason string
	}{
		"approved":             {true, ""},
		" Approve\n":           {true, ""},
		"y":                    {true, ""},
		"denied":               {false, ""},
		"denied: keep it":      {false, "keep it"},
		"Deny:  too risky ":    {false, "too risky"},
		"":                     {false, ""},
		"maybe later, not now": {false, "maybe later, not now"}, // anything else denies
	} {
		ok, reason := ParseAnswer(answer)
		if ok != want.ok || reason != want.reason {
			t.Errorf("ParseAnswer(%q) = %v, %q; want %v, %q", answer, ok, reason, want.ok, want.reason)
		}
	}
}

func TestDecide(t *testing.T) {
	a := &agent.Agent{Approval: []agent.ApprovalRule{
		{Tool: "read_*", Decision: agent.ApproveAllow, Line: 3},
		{Tool: "shell", Command: regexp.MustCompile(`^rm\b`), Decision: agent.ApproveAsk, Reason: "deletes", Line: 5},
		{Tool: "note", JQ: `.text | test("secret")`, Decision: agent.ApproveDeny, Reason: "no secrets", Line: 8},
		{Tool: "open", JQ: `.path | startswith("/")`, Decision: agent.ApproveAllow, Line: 11},
		{Tool: "open", Decision: agent.ApproveAsk, Line: 13},
	}}
	p, problems := Compile(a)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, tc := range []struct {
		tool, args, command string
		want                Verdict
	}{
		{"read_file", `{}`, "", Allow},
		{"shell", `{}`, "rm -rf x", Verdict{agent.ApproveAsk, "deletes", "agent.yaml approval rule at line 5"}},
		{"shell", `{}`, "ls", Allow},
		{"note", `{"text":"top secret"}`, "", Verdict{agent.ApproveDeny, "no secrets", "agent.yaml approval rule at line 8"}},
		{"note", `{"text":"hello"}`, "", Allow},
		// A jq condition that fails holds for a deny rule...
		{"note", `{"text":42}`, "", Verdict{agent.ApproveDeny, "no secrets", "agent.yaml approval rule at line 8"}},
		// ... and not for an allow rule: the next rule asks.
		{"open", `{"path":7}`, "", Verdict{agent.ApproveAsk, "", "agent.yaml approval rule at line 13"}},
		{"open", `{"path":"/etc"}`, "", Allow},
	} {
		if got := p.Decide(tc.tool, []byte(tc.args), tc.command); got != tc.want {
			t.Errorf("Decide(%s, %s, %q) = %+v, want %+v", tc.tool, tc.args, tc.command, got, tc.want)
		}
	}
	var none *Policy
	if got := none.Decide("x", []byte(`{}`), ""); got != Allow {
		t.Errorf("nil Policy: Decide = %+v, want Allow", got)
	}
}

func TestCompileProblem(t *testing.T) {
	a := &agent.Agent{ConfigPath: "agent.yaml", Approval: []agent.ApprovalRule{{Tool: "x", JQ: ".a | (", Decision: agent.ApproveDeny, Line: 4}}}
	if _, problems := Compile(a); len(problems) != 1 || problems[0].Line != 4 || problems[0].Err != ErrJQ {
		t.Errorf("Compile(bad jq) problems = %+v, want one at line 4 with ErrJQ", problems)
	}
}

// TestFailClosed: under ModeDeny every verdict that needs a human, a
// rule's or a hook's, is a denial saying why; nothing else changes.
func TestFailClosed(t *testing.T) {
	rule := Verdict{agent.ApproveAsk, "deletes", "agent.yaml approval rule at line 5"}
	for _, tc := range []struct {
		v, want Verdict
		mode    string
	}{
		{rule, Verdict{agent.ApproveDeny, "deletes (it needs a human's approval, and " + NoHuman + ")", rule.Rule}, ModeDeny},
		{FromHook("prod"), Verdict{agent.ApproveDeny, "prod (it needs a human's approval, and " + NoHuman + ")", HookRule}, ModeDeny},
		{rule, rule, ModeAsk},
		{Allow, Allow, ModeDeny},
	} {
		if got := tc.v.FailClosed(tc.mode, NoHuman); !cmp.Equal(got, tc.want) {
			t.Errorf("%+v.FailClosed(%s) = %+v, want %+v", tc.v, tc.mode, got, tc.want)
		}
	}
}

// TestUnanswered: the answer recorded when nobody answered in time reads
// as a denial whose reason says so, and no other denial does.
func TestUnanswered(t *testing.T) {
	answer := Unanswered(2 * time.Second)
	if answer != "denied: no answer within 2s" {
		t.Errorf("Unanswered(2s) = %q, want %q", answer, "denied: no answer within 2s")
	}
	approved, reason := ParseAnswer(answer)
	if approved || !IsUnanswered(reason) {
		t.Errorf("ParseAnswer(%q) = %t, %q; want a denial IsUnanswered recognises", answer, approved, reason)
	}
	if _, reason := ParseAnswer("denied: too risky"); IsUnanswered(reason) {
		t.Errorf("IsUnanswered(%q) = true, want false", reason)
	}
}
