package workflow

import (
	"context"
	"io"

	"github.com/deltakit/delta/lib/llm"
)

// Outcome is how one attempt at a delivery ended.
type Outcome int

// Outcomes of Backend.Run.
const (
	// Succeeded: the agent handled the delivery; its inbox is acknowledged.
	Succeeded Outcome = iota
	// Failed: the attempt failed; it is retried (unless the failure is
	// Permanent), then left unread.
	Failed
	// Waiting: the agent waits for a human (ask_human or an approval);
	// Run is called again later and reports progress once answered.
	Waiting
	// Interrupted: the runner is stopping; the delivery goes on when it
	// starts again.
	Interrupted
)

func (o Outcome) String() string {
	return [...]string{"succeeded", "failed", "waiting", "interrupted"}[o]
}

// Job is one delivery of an agent's inbox to the agent.
type Job struct {
	Agent *AgentDef
	// Prompt is the digest the agent is given (inbox, recent channel,
	// document, instructions).
	Prompt string
	// Delivery is the delivery's record: Mark tells a backend whether an
	// earlier attempt (maybe of a runner that died since) reached the
	// agent.
	Delivery *Delivery
	// Log receives the agent's live output (the run's stream on stderr).
	Log io.Writer
	// Record saves Delivery as the backend changed it (its Task), so that
	// a runner started after a crash finds it.
	Record func() error
}

// Result is what an attempt did.
type Result struct {
	Outcome Outcome
	// Err says why it failed.
	Err string
	// Answer is the agent's final answer, when known.
	Answer string
	// Started is true when the attempt started a process (a run, a
	// continue, a command), false when it only found what an earlier one
	// left (a run completed meanwhile, still waiting).
	Started bool
	// Permanent marks a failure that a retry cannot fix: delta-run's exit
	// 126, a configuration or permission error (a broken agent.yaml, a
	// missing key or model, a bad flag), or an agent command that cannot
	// be run (not found or not executable: the shell's 127 and 126). The
	// delivery is given up at once instead of being retried; retries are
	// for failures that can pass.
	Permanent bool
	// noRun: delta-run printed no run result (it did not take the run:
	// refused it, or failed before it began).
	noRun bool
}

// Backend runs agents.
type Backend interface {
	// Mark returns the agent's state before a delivery (for a Delta run,
	// its journal's size; -1 when it has no run yet), recorded in the
	// delivery so that Run can tell, even after a crash, whether the
	// delivery's message already reached the agent.
	Mark(a *AgentDef) (int64, error)
	// Run makes progress on a delivery: it starts or continues the agent
	// (or waits for a process a previous runner left running) and reports
	// how it ended. It is called again for a waiting or failed delivery.
	Run(ctx context.Context, job Job) Result
	// Usage returns the agent's token usage and number of runs so far
	// (zero when the backend does not know).
	Usage(a *AgentDef) llm.Usage
}
