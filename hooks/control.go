package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// control is output/control.json.
type control struct {
	Action  string `json:"action"`
	Skip    bool   `json:"skip"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// verdict is what a control.json action asks for.
type verdict int

const (
	goOn    verdict = iota // continue, allow or no action
	modify                 // apply output/final_payload.json
	blockIt                // block the tool call
	askIt                  // have a human approve the tool call first
)

// actions is the control.json vocabulary, matched without regard to case.
// "block" is the word of the plugin protocol and of the journal; ABORT is
// the spec's (seeds/000 §2.7.3); deny and reject are what policy authors
// write. Anything else is a hook failure, never a silent continue.
var actions = map[string]verdict{
	"":         goOn,
	"continue": goOn,
	"allow":    goOn,
	"modify":   modify,
	"block":    blockIt,
	"abort":    blockIt,
	"deny":     blockIt,
	"reject":   blockIt,
	"ask":      askIt,
	"escalate": askIt,
}

// AcceptedActions lists the control.json action values, for messages and
// documentation.
const AcceptedActions = "continue, allow, modify, block, abort, deny, reject, ask, escalate (any case)"

// errUnknownAction is a control.json action outside the vocabulary.
var errUnknownAction = errors.New("unknown action")

// verdictOf reads the action of c; skip: true blocks whatever the action.
func verdictOf(c control) (verdict, error) {
	v, ok := actions[strings.ToLower(strings.TrimSpace(c.Action))]
	if !ok {
		return goOn, fmt.Errorf("output/control.json: %w %q (accepted: %s)", errUnknownAction, c.Action, AcceptedActions)
	}
	if c.Skip {
		return blockIt, nil
	}
	return v, nil
}

// readControl reads output/control.json; has is false when the hook wrote
// none.
func readControl(dir string) (c control, has bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "output", "control.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("read output/control.json: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, false, fmt.Errorf("output/control.json: %v", err)
	}
	return c, true, nil
}

func ctlReason(c control) string {
	if c.Reason != "" {
		return c.Reason
	}
	return c.Message
}
