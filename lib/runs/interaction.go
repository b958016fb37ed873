package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Interaction files under the run directory: what a paused run waits for,
// and the answer given to it.
const (
	InteractionDir = "interaction"
	RequestFile    = "request.json"
	ResponseFile   = "response.txt"
)

// InputApproval is the input_type of a request for a tool call's approval.
const InputApproval = "approval"

// InputEscalation is the input_type of a request to run once outside the
// sandbox a tool call the sandbox refused (the on-failure escalation).
const InputEscalation = "escalation"

// IsApproval reports whether inputType asks for a decision on a tool
// call, answered "approved" or "denied: REASON": an approval or an
// escalation.
func IsApproval(inputType string) bool {
	return inputType == InputApproval || inputType == InputEscalation
}

// Request is what interaction/request.json says a paused run waits for;
// a Result of a WAITING_FOR_INPUT run carries it too.
type Request struct {
	Prompt    string `json:"prompt"`
	InputType string `json:"input_type"`
	Sensitive bool   `json:"sensitive"`
	CallID    string `json:"call_id,omitempty"`
	// Pending lists every call waiting for an approval (the first is the
	// one above); it is empty for a question.
	Pending []PendingCall `json:"pending,omitempty"`
}

// PendingCall is a call waiting for an approval.
type PendingCall struct {
	CallID string `json:"call_id"`
	Prompt string `json:"prompt"`
}

// ReadRequest reads interaction/request.json of a run; an error wraps
// fs.ErrNotExist when the run waits for nothing.
func ReadRequest(runDir string) (*Request, error) {
	path := filepath.Join(runDir, InteractionDir, RequestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Approvals returns the ids of the calls the request waits to have
// approved (none for a question).
func (r *Request) Approvals() []string {
	if !IsApproval(r.InputType) {
		return nil
	}
	var ids []string
	for _, p := range r.Pending {
		ids = append(ids, p.CallID)
	}
	if len(ids) == 0 && r.CallID != "" {
		ids = []string{r.CallID}
	}
	return ids
}
