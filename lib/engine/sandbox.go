package engine

import (
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/sandbox"
)

// SetSandbox confines every later call to r (package sandbox); nil runs
// them unconfined.
func (c *CommandTools) SetSandbox(r *sandbox.Rules) { c.sandbox = r }

// refusalNoted is text, the observation of a call that failed, with a
// note when the failure looks like the sandbox's refusal: the model learns
// that the sandbox, not the program, said no, and what it allows, instead
// of retrying the same write or connect.
func (c *CommandTools) refusalNoted(text string, failed bool, res execute.Result) string {
	if c.sandbox == nil || !failed || !sandbox.Refused(res.Stdout+"\n"+res.Stderr) {
		return text
	}
	return text + "\n" + c.sandbox.Note()
}
