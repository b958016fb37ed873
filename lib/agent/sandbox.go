package agent

import (
	"gopkg.in/yaml.v3"

	"github.com/deltakit/delta/lib/sandbox"
)

// sandboxKeys are the keys of agent.yaml's sandbox: mapping.
var sandboxKeys = []string{"mode", "writable", "network", "escalate"}

// sandboxHint shows both spellings of sandbox:.
const sandboxHint = "sandbox: workspace-write, or sandbox: {mode: workspace-write, writable: [build], network: [localhost:5432]}"

// decodeSandbox reads sandbox: — a mode alone, or a mapping of mode,
// writable (paths), network (true, false or a list of host:port) and
// escalate (false: never offer to run a refused call outside). nil
// when the key is absent: the run's default applies.
func decodeSandbox(d *doc, f field) *sandbox.Policy {
	if f.value == nil {
		return nil
	}
	p := &sandbox.Policy{}
	if f.value.Kind == yaml.ScalarNode {
		p.Mode = sandboxMode(d, f, "sandbox")
		return p
	}
	m := d.fields(f.value, "sandbox", sandboxKeys)
	if m == nil {
		return nil
	}
	if _, ok := m["mode"]; !ok {
		d.problem(f.value, ErrInvalid, sandboxHint, "sandbox needs a mode: read-only, workspace-write or danger-full-access")
		return nil
	}
	p.Mode = sandboxMode(d, m["mode"], "sandbox.mode")
	p.Writable = d.strList(m["writable"], "sandbox.writable")
	if n := m["network"].value; n != nil {
		if n.Kind == yaml.SequenceNode {
			p.Allow = d.strList(m["network"], "sandbox.network")
		} else if b := d.boolPtr(m["network"], "sandbox.network"); b != nil {
			p.Network = *b
		}
	}
	p.Escalate = d.boolPtr(m["escalate"], "sandbox.escalate")
	if err := p.Check(); err != nil {
		d.problem(m["network"].value, ErrInvalid, sandboxHint, "%v", err)
	}
	return p
}

// sandboxMode reads a mode, reporting an unknown one.
func sandboxMode(d *doc, f field, what string) sandbox.Mode {
	s := d.str(f, what)
	m, err := sandbox.ParseMode(s)
	if err != nil && f.value.Tag != "!!null" && f.value.Kind == yaml.ScalarNode {
		d.problem(f.value, ErrInvalid, sandboxHint, "%s: %v", what, err)
	}
	return m
}
