package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// The exit codes of delta-run, by how the invocation left its run
// (seeds/000 §2.6.5). A program that starts a delta-run child reads the
// child's outcome from its exit code first and from its Result second.
const (
	ExitCompleted   = 0
	ExitFailed      = 1
	ExitWaiting     = 101
	ExitConfig      = 126 // the configuration or a permission is wrong: the run never began, or cannot go on
	ExitInterrupted = 130
)

// ExitStatus is the run status an exit code of delta-run reports: a code
// outside the table (a crash, a signal) is a failure.
func ExitStatus(code int) Status {
	switch code {
	case ExitCompleted:
		return Completed
	case ExitWaiting:
		return WaitingForInput
	case ExitInterrupted:
		return Interrupted
	}
	return Failed
}

// ResultSchema is the schema_version of a Result.
const ResultSchema = "2.0"

// Result is delta-run's --format json document (RunResult v2.0,
// seeds/000 §2.6.6): delta-run prints it, and the programs that run
// delta-run as a child (subagents, workflows, chat) read it.
type Result struct {
	SchemaVersion string `json:"schema_version"`
	RunID         string `json:"run_id"`
	Status        Status `json:"status"`
	// Result is the final answer of a COMPLETED run: the model's text as
	// a JSON string, or the JSON value the text holds.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is why a run that is neither COMPLETED nor WAITING stopped.
	Error *ResultError `json:"error,omitempty"`
	// Interaction is what a WAITING_FOR_INPUT run waits for.
	Interaction *Request      `json:"interaction,omitempty"`
	Metrics     ResultMetrics `json:"metrics"`
	Metadata    ResultRun     `json:"metadata"`
}

// ResultError is a Result's error: its type (max_iterations, llm_error,
// interrupted …), its message and optional details.
type ResultError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

// ResultMetrics are the counts of a Result.
type ResultMetrics struct {
	Iterations int         `json:"iterations"`
	DurationMS int64       `json:"duration_ms"`
	StartTime  time.Time   `json:"start_time"`
	EndTime    time.Time   `json:"end_time"`
	Usage      ResultUsage `json:"usage"`
}

// ResultUsage is the token usage and cost of a Result, whole and per
// model.
type ResultUsage struct {
	TotalCostUSD float64 `json:"total_cost_usd"`
	// Usage is the run's total: input and output tokens, and the cache
	// and reasoning tokens when the provider reports them.
	llm.Usage
	ModelUsage map[string]llm.Usage `json:"model_usage"`
}

// ResultRun says which agent ran, and where.
type ResultRun struct {
	AgentName     string `json:"agent_name"`
	WorkspacePath string `json:"workspace_path"`
}

// ErrNoResult means a child's standard output held no Result (it failed
// before its run began, or was not asked for --format json).
var ErrNoResult = errors.New("no RunResult")

// DecodeResult reads the Result a delta-run child printed.
func DecodeResult(data []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoResult, err)
	}
	if r.Status == "" {
		return nil, fmt.Errorf("%w: the document has no status", ErrNoResult)
	}
	return &r, nil
}

// Text is the final answer as text: a JSON string's value, or the JSON
// value itself; "" when there is none (also for a nil Result).
func (r *Result) Text() string {
	if r == nil || len(r.Result) == 0 || string(r.Result) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(r.Result, &s) == nil {
		return s
	}
	return string(r.Result)
}

// Message is the error message of a run that did not complete, "" when
// it gave none (also for a nil Result).
func (r *Result) Message() string {
	if r == nil || r.Error == nil {
		return ""
	}
	return r.Error.Message
}
