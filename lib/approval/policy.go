package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/itchyny/gojq"

	"github.com/deltakit/delta/lib/agent"
)

// ErrJQ is the error of a problem whose rule's jq expression does not
// compile.
var ErrJQ = errors.New("approval rule: jq expression does not compile")

// jqTimeout bounds one rule's jq expression over one call.
const jqTimeout = time.Second

// Policy is an agent's approval rules, compiled. The zero Policy and a nil
// *Policy allow every call.
type Policy struct {
	rules []agent.ApprovalRule
	jq    map[int]*gojq.Code // by rule index
}

// Compile compiles a's approval rules; a jq expression that does not
// compile is a problem located at its rule's line. A jq condition runs
// over the call's arguments with $tool and $command defined and holds when
// its first value is neither false nor null.
func Compile(a *agent.Agent) (*Policy, []agent.Problem) {
	p := &Policy{rules: a.Approval, jq: map[int]*gojq.Code{}}
	var problems []agent.Problem
	for i, r := range a.Approval {
		if r.JQ == "" {
			continue
		}
		q, err := gojq.Parse(r.JQ)
		if err == nil {
			p.jq[i], err = gojq.Compile(q, gojq.WithVariables([]string{"$tool", "$command"}))
		}
		if err != nil {
			problems = append(problems, agent.Problem{File: a.ConfigPath, Line: r.Line, Col: 1,
				Msg: fmt.Sprintf("approval rule: jq %q: %v", r.JQ, err), Hint: "check the expression with: echo '{}' | jq 'EXPRESSION'", Err: ErrJQ})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return p, nil
}

// Decide is the verdict of the first rule that applies to a call of tool
// with arguments args (a JSON value) and command line command ("" for a
// tool that is not a command); Allow when none does.
func (p *Policy) Decide(tool string, args json.RawMessage, command string) Verdict {
	if p == nil {
		return Allow
	}
	for i, r := range p.rules {
		if matches(r, tool, command) && (r.JQ == "" || p.holds(i, tool, command, args)) {
			if r.Decision == agent.ApproveAllow {
				return Allow
			}
			return Verdict{Decision: r.Decision, Reason: r.Reason, Rule: RuleName(r)}
		}
	}
	return Allow
}

// holds runs rule i's jq condition over args. An expression that fails
// (or arguments that are not JSON) holds for a deny or ask rule and not
// for an allow rule: an error never lets a call through.
func (p *Policy) holds(i int, tool, command string, args json.RawMessage) bool {
	code := p.jq[i]
	if code == nil {
		return false
	}
	failClosed := p.rules[i].Decision != agent.ApproveAllow
	var input any
	if err := json.Unmarshal(args, &input); err != nil {
		return failClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), jqTimeout)
	defer cancel()
	v, ok := code.RunWithContext(ctx, input, tool, command).Next()
	if !ok {
		return false
	}
	if _, isErr := v.(error); isErr {
		return failClosed
	}
	return v != nil && v != false
}
