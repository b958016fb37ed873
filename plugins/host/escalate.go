package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/lib/engine"
)

var _ engine.Escalator = (*Toolbox)(nil)

// Unsandboxed is the toolbox that runs tool name outside the sandbox, for
// the on-failure escalation (engine.Escalator): false when the plugins
// run unconfined or none serves name.
//
// Each call it runs starts a second process of the tool's plugin, outside
// the sandbox, and stops it once the call is answered. A process kept for
// the run would save a plugin start per escalation, which is nothing next
// to the human approval each one waits for, and would leave an
// unconfined process running beside the confined one, with whatever a
// call started in it still going: one process per approved call runs
// exactly what was approved and nothing after it.
func (t *Toolbox) Unsandboxed(name string) (engine.Toolbox, bool) {
	if t.h.opts.Sandbox == nil || !t.Has(name) {
		return nil, false
	}
	return outside{t}, true
}

// outside is a Toolbox whose calls run in an unconfined plugin process.
type outside struct{ *Toolbox }

// Call runs one call in a process of the tool's plugin started for it
// outside the sandbox, with the arguments checked and the record written
// as for any call.
func (o outside) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	c, ok := o.by[name]
	if !ok {
		return engine.ToolOutcome{}, fmt.Errorf("tool %q: %w", name, errNoSuchTool)
	}
	free := c.unconfined()
	defer free.Stop()
	return o.call(ctx, free, nil, run, callID, name, args)
}

// Close leaves the plugins to the toolbox outside was made from.
func (outside) Close() error { return nil }
