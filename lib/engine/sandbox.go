package engine

import (
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/sandbox"
)

// SetSandbox confines every later call to r (package sandbox); nil runs
// them unconfined.
func (c *CommandTools) SetSandbox(r *sandbox.Rules) { c.sandbox = r }

// Unsandboxed is the toolbox that runs name outside the sandbox, for the
// on-failure escalation (Escalator): these tools unconfined.
func (c *CommandTools) Unsandboxed(name string) (Toolbox, bool) {
	if c.sandbox == nil || !c.Has(name) {
		return nil, false
	}
	free := *c
	free.sandbox = nil
	return &free, true
}

// refusalNoted is text, the observation of a call that failed, with a
// note when the failure looks like the sandbox's refusal: the model learns
// that the sandbox, not the program, said no, and what it allows, instead
// of retrying the same write or connect. refused reports that it did.
func (c *CommandTools) refusalNoted(text string, failed bool, res execute.Result) (_ string, refused bool) {
	if c.sandbox == nil || !failed || !sandbox.Refused(res.Stdout+"\n"+res.Stderr) {
		return text, false
	}
	return text + "\n" + c.sandbox.Note(), true
}
