package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Result statuses of a task.
const (
	ResultCompleted = "completed"
	ResultFailed    = "failed"
	ResultWaiting   = "waiting" // the run waits for a human (exit 101)
	// ResultInterrupted: a workflow delivery whose run was interrupted
	// from outside (delta stop), not by its worker stopping.
	ResultInterrupted = "interrupted"
)

// Result is how a task ended, one per task in ResultStream.
type Result struct {
	Batch  string          `json:"batch"`
	Task   string          `json:"task"`
	RunID  string          `json:"run_id"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"` // the run's RunResult result
	Error  string          `json:"error,omitempty"`  // why a failed task failed
	// Permanent marks a failure no retry can fix (a configuration error).
	Permanent bool            `json:"permanent,omitempty"`
	Usage     json.RawMessage `json:"usage,omitempty"` // the run's token usage
	Cost      float64         `json:"cost"`            // USD, as the run priced it
	Host      string          `json:"host,omitempty"`
	Worker    string          `json:"worker,omitempty"`
	Attempt   int             `json:"attempts"`
	// Previous are the earlier attempts, each with how it ended.
	Previous []Attempt `json:"previous,omitempty"`
}

// PublishResult stores r as its task's result. A task has one result: a
// second publish (a retried one, or a late worker's) is a duplicate and
// dropped by the stream, which dup reports.
func (c *Cluster) PublishResult(ctx context.Context, r Result) (dup bool, err error) {
	body, err := json.Marshal(r)
	if err != nil {
		return false, fmt.Errorf("encode the result of task %s: %w", r.Task, err)
	}
	msg := nats.NewMsg(ResultSubject(r.Batch, r.Task))
	msg.Data = body
	ack, err := c.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(TaskMsgID(r.Batch, r.Task)))
	if err != nil {
		return false, fmt.Errorf("publish the result of task %s of batch %s: %w", r.Task, r.Batch, err)
	}
	return ack.Duplicate, nil
}

// TaskResult returns a task's result, nil when it has none yet.
func (c *Cluster) TaskResult(ctx context.Context, batch, task string) (*Result, error) {
	st, err := c.stream(ctx, ResultStream)
	if err != nil {
		return nil, err
	}
	m, err := st.GetLastMsgForSubject(ctx, ResultSubject(batch, task))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the result of task %s of batch %s: %w", task, batch, err)
	}
	return decodeResult(m.Data)
}

func decodeResult(data []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("a result in %s is not JSON: %w", ResultStream, err)
	}
	return &r, nil
}

// followPatience is how long a following Results rides out errors in a
// row (a cluster electing a new stream leader answers with errors for a
// few seconds) before it gives up.
const followPatience = 2 * time.Minute

// followQuiet bounds one wait for the next result.
const followQuiet = 10 * time.Second

// Results calls fn with every result of batch in the order they were
// stored (the first of a task only); with follow it then waits for more
// until fn returns ErrStop or ctx ends.
func (c *Cluster) Results(ctx context.Context, batch string, follow bool, fn func(Result) error) error {
	st, err := c.stream(ctx, ResultStream)
	if err != nil {
		return err
	}
	info, err := Retrying(ctx, func(ctx context.Context) (*jetstream.StreamInfo, error) {
		return st.Info(ctx, jetstream.WithSubjectFilter(ResultsOf(batch)))
	})
	if err != nil {
		return fmt.Errorf("read the results of batch %s: %w", batch, err)
	}
	if len(info.State.Subjects) == 0 && !follow {
		return nil
	}
	var lastSeq uint64 // the stream sequence of the last result delivered
	consumer := func() (jetstream.Consumer, error) {
		cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{ResultsOf(batch)}}
		if lastSeq > 0 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, lastSeq+1
		}
		return Retrying(ctx, func(ctx context.Context) (jetstream.Consumer, error) { return st.OrderedConsumer(ctx, cfg) })
	}
	cons, err := consumer()
	if err != nil {
		return fmt.Errorf("read the results of batch %s: %w", batch, err)
	}
	seen := map[string]bool{}
	var failing time.Time // when the errors in a row began, zero without any
	for {
		// Each wait is bounded: an ordered consumer whose server went
		// away may never answer again, so a quiet spell, like an error,
		// starts a new one after the last result delivered.
		nctx, cancel := context.WithTimeout(ctx, followQuiet)
		m, err := cons.Next(jetstream.FetchContext(nctx))
		cancel()
		if (errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)) && ctx.Err() == nil {
			if c, cerr := consumer(); cerr == nil {
				cons = c
			}
			continue // nothing new for a while: ask again
		}
		if err != nil && (follow || transient(err)) && ctx.Err() == nil && (failing.IsZero() || time.Since(failing) < followPatience) {
			// A node lost or a leader being elected (while following, any
			// error; else one the cluster gives while it recovers): a new
			// ordered consumer starts after the last result delivered.
			if failing.IsZero() {
				failing = time.Now()
			}
			backoff(ctx, 3)
			if c, cerr := consumer(); cerr == nil {
				cons = c
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read the results of batch %s: %w", batch, err)
		}
		failing = time.Time{}
		md, mdErr := m.Metadata()
		if mdErr == nil {
			lastSeq = md.Sequence.Stream
		}
		r, err := decodeResult(m.Data())
		if err != nil {
			return err
		}
		if !seen[r.Task] {
			seen[r.Task] = true
			if err := fn(*r); errors.Is(err, ErrStop) {
				return nil
			} else if err != nil {
				return err
			}
		}
		if mdErr == nil && md.NumPending == 0 && !follow {
			return nil
		}
	}
}
