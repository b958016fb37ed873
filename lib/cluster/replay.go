package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrStop, returned by a Replay callback, ends the replay without error.
var ErrStop = errors.New("stop replay")

// Replay calls fn with each of run's mirrored lines in order, checking
// the chain as it goes. Without follow it ends after the line that was
// last when it started; with follow it waits for more until fn returns
// ErrStop or ctx ends. A run with no lines and no follow returns
// ErrNoRun.
func (c *Cluster) Replay(ctx context.Context, run string, follow bool, fn func(Entry) error) error {
	last, err := c.lastEntry(ctx, run)
	if err != nil {
		return err
	}
	if last == nil && !follow {
		return fmt.Errorf("run %s: %w", run, ErrNoRun)
	}
	cons, err := c.JS.OrderedConsumer(ctx, JournalStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{JournalSubject(run)},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("follow run %s in the cluster: %w", run, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("follow run %s in the cluster: %w", run, err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	var before *Entry
	for {
		if !follow && last != nil && before != nil && before.StreamSeq >= last.StreamSeq {
			return nil
		}
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("follow run %s in the cluster: %w", run, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("follow run %s: %w", run, err)
		}
		e := entryOf(m.Headers(), m.Data(), md.Sequence.Stream)
		if err := Chain(before, e); err != nil {
			return fmt.Errorf("run %s: %w", run, err)
		}
		if err := fn(e); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
		before = &e
	}
}

// ErrNoRun is a run the cluster holds nothing of.
var ErrNoRun = errors.New("the cluster has no journal for this run (was it started with --cluster?)")
