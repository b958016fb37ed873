package contextgen

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/itchyny/gojq"

	"github.com/deltakit/delta/lib/agent"
)

// approvalJQTimeout bounds one rule's jq expression over one call.
const approvalJQTimeout = time.Second

// ApprovalJQ compiles the jq expressions of an agent's approval rules
// (jq lives here, with the context generators' jq). The matcher runs a
// rule's expression over a call's arguments, with $tool and $command
// defined: the rule holds when the first value is neither false nor null.
// An expression that fails on a call holds for a deny or ask rule and not
// for an allow rule, so that an error never lets a call through.
func ApprovalJQ(a *agent.Agent) (agent.ArgsMatcher, []agent.Problem) {
	codes := map[int]*gojq.Code{}
	var problems []agent.Problem
	for i, r := range a.Approval {
		if r.JQ == "" {
			continue
		}
		q, err := gojq.Parse(r.JQ)
		if err == nil {
			codes[i], err = gojq.Compile(q, gojq.WithVariables([]string{"$tool", "$command"}))
		}
		if err != nil {
			problems = append(problems, agent.Problem{File: a.ConfigPath, Line: r.Line, Col: 1,
				Msg: fmt.Sprintf("approval rule: jq %q: %v", r.JQ, err), Hint: "check the expression with: echo '{}' | jq 'EXPRESSION'", Err: ErrJQ})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return func(i int, tool, command string, args []byte) bool {
		code := codes[i]
		if code == nil {
			return false
		}
		failClosed := a.Approval[i].Decision != agent.ApproveAllow
		var input any
		if err := json.Unmarshal(args, &input); err != nil {
			return failClosed
		}
		ctx, cancel := context.WithTimeout(context.Background(), approvalJQTimeout)
		defer cancel()
		v, ok := code.RunWithContext(ctx, input, tool, command).Next()
		if !ok {
			return false
		}
		if _, isErr := v.(error); isErr {
			return failClosed
		}
		return v != nil && v != false
	}, nil
}
