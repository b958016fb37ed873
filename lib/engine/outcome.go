package engine

import (
	"encoding/json"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// Error types reported in Outcome.Error and RunResult's error.type.
const (
	ErrTypeMaxIterations = "max_iterations"
	ErrTypeLLM           = "llm_error"
	ErrTypeContext       = "context_error"
	// ErrTypeContextOverflow: the model refused a request longer than its
	// context window.
	ErrTypeContextOverflow = "context_overflow"
	ErrTypeEngine          = "engine_error"
	ErrTypeInterrupted     = "interrupted"
)

// RunError is why a run did not complete.
type RunError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

// Interaction is a pending ask_human question (async mode).
type Interaction struct {
	RequestID string `json:"request_id,omitempty"`
	Prompt    string `json:"prompt"`
	InputType string `json:"input_type"`
	Sensitive bool   `json:"sensitive"`
	CallID    string `json:"call_id,omitempty"`
	// Pending lists every call waiting for an approval when several of
	// one turn wait at once (the first is the one above).
	Pending []Interaction `json:"pending,omitempty"`
}

// Outcome is how one engine invocation ended.
type Outcome struct {
	// Status is how the run stands now (runs.Completed, runs.Failed,
	// runs.Interrupted or runs.WaitingForInput), recorded in metadata.json
	// and in ENGINE_END.
	Status runs.Status
	// Result is the final answer when COMPLETED: the model's text, or the
	// JSON value it holds when the text is valid JSON.
	Result      json.RawMessage
	ResultText  string
	Error       *RunError
	Interaction *Interaction
	// Iterations is the run's last iteration number (over all invocations).
	Iterations int
	// Usage sums the tokens of every THOUGHT of the run; ModelUsage splits
	// it per model name.
	Usage      llm.Usage
	ModelUsage map[string]llm.Usage
	// TurnLimit names the turn limit that completed the run
	// (journal.KindMaxTurns or journal.KindMaxToolRounds), "" when none did.
	TurnLimit string
}

// ParseResult turns the model's final text into a RunResult value: the JSON
// value when the text is JSON, else a JSON string.
func ParseResult(text string) json.RawMessage {
	trimmed := []byte(text)
	if json.Valid(trimmed) && len(trimmed) > 0 {
		var v any
		if json.Unmarshal(trimmed, &v) == nil {
			if out, err := json.Marshal(v); err == nil {
				return out
			}
		}
	}
	out, _ := json.Marshal(text)
	return out
}
