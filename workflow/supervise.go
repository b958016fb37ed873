package workflow

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/deltakit/delta/workflow/board"
)

// drive runs the controllers until the workflow is done (run mode) or
// ctx ends, and returns the summary status.
func (r *runner) drive(ctx context.Context) string {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range r.ctrls {
		wg.Add(1)
		go func() { defer wg.Done(); c.Run(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); r.watch(ctx) }()
	for _, fl := range r.follow {
		wg.Add(1)
		go func() { defer wg.Done(); followLog(ctx, fl.path, &prefixWriter{w: r.out, prefix: fl.prefix}) }()
	}
	r.pid.Ready = true
	if err := writeJSON(filepath.Join(r.dir, RunnerDir, PIDFile), r.pid); err != nil {
		r.printf("warning: %v", err)
	}
	status := r.supervise(ctx)
	cancel()
	wg.Wait()
	return status
}

// watch wakes the controllers of the agents each new channel entry
// mentions, and prints the entries.
func (r *runner) watch(ctx context.Context) {
	seq, err := r.p.LastSeq(ctx)
	if err != nil {
		return
	}
	// Entries after the kickoff that arrived while no runner watched
	// are in the inboxes; the controllers find them when they start.
	byName := map[string]*Controller{}
	for _, c := range r.ctrls {
		byName[c.Agent.Name] = c
	}
	for {
		last, err := r.p.Wait(ctx, seq)
		if err != nil {
			return
		}
		entries, err := r.p.Read(ctx, board.ReadOptions{AfterSeq: seq})
		if err != nil {
			return
		}
		for _, e := range entries {
			r.printf("#%d @%s: %s", e.Seq, e.From, cut(oneLine(e.Message), 160))
			for _, m := range e.Mentions {
				if c := byName[m]; c != nil {
					c.Wake()
				}
			}
			seq = max(seq, e.Seq)
		}
		seq = max(seq, last)
	}
}

// supervise applies stop requests and, in run mode, ends the workflow
// once it is idle: every controller idle (or failed, or stopped), no
// unread message but those given up on, no active proposal, and it stays
// so for the debounce period with nothing new on the channel.
func (r *runner) supervise(ctx context.Context) string {
	debounce := r.o.Debounce
	if debounce <= 0 {
		debounce = 2 * time.Second
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var quietSince time.Time
	var quietSeq int64
	for {
		select {
		case <-ctx.Done():
			if r.o.Mode == ModeStart {
				return SummaryStopped
			}
			return SummaryInterrupted
		case <-tick.C:
		case <-r.changed:
		}
		r.applyStops()
		// Proposal deadlines fire when someone looks: in every mode, and
		// while the agents are busy, the runner does, once a tick.
		if _, err := r.p.Settle(ctx); err != nil && ctx.Err() == nil {
			r.printf("warning: settle proposals: %v", err)
		}
		if !r.state.KickoffDone {
			if pending, err := r.electing(ctx); err != nil {
				r.printf("warning: %v", err)
			} else if !pending {
				if err := r.kickoff(ctx); err != nil {
					r.printf("warning: %v", err)
				}
			}
			continue
		}
		if r.o.Mode != ModeRun {
			continue
		}
		quiet, failed := r.quiet(ctx)
		if !quiet {
			quietSince = time.Time{}
			continue
		}
		seq, err := r.p.LastSeq(ctx)
		if err != nil {
			continue
		}
		if quietSince.IsZero() || seq != quietSeq {
			quietSince, quietSeq = time.Now(), seq
			continue
		}
		if time.Since(quietSince) >= debounce {
			if failed {
				return SummaryFailed
			}
			return SummaryCompleted
		}
	}
}

// applyStops stops the controllers whose stop marker appeared.
func (r *runner) applyStops() {
	for _, c := range r.ctrls {
		if c.isStopped() {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.Dir, stopFile)); err == nil {
			r.printf("%s: stopped", c.Agent.Name)
			c.Stop()
		}
	}
}

// quiet reports whether the workflow is idle now, and whether an agent
// failed.
func (r *runner) quiet(ctx context.Context) (quiet, failed bool) {
	for _, c := range r.ctrls {
		st := c.Status().Status
		switch st {
		case StatusRunning, StatusWaiting:
			return false, false
		case StatusStopped:
			continue
		}
		inbox, err := r.p.Inbox(ctx, c.Agent.Name)
		if err != nil {
			return false, false
		}
		if len(inbox) > 0 {
			if inbox[len(inbox)-1].Entry.Seq > c.GaveUpAt() {
				return false, false
			}
			failed = true
		}
		if st == StatusFailed {
			failed = true
		}
	}
	active, err := r.p.ActiveProposals(ctx)
	if err != nil || active {
		return false, false
	}
	return true, failed
}

// summary collects the outcome.
func (r *runner) summary(ctx context.Context, status string) (*Summary, error) {
	s := &Summary{Workflow: r.f.Name, Instance: r.o.Instance, Dir: r.dir, Status: status, Documents: map[string]string{}}
	for _, c := range r.ctrls {
		st := c.Status()
		a := AgentSummary{Name: c.Agent.Name, Backend: c.Agent.Backend, RunID: st.RunID, Status: st.Status, Runs: st.Runs, Error: st.Error}
		u := r.backends[c.Agent.Name].Usage(c.Agent)
		a.InputTokens, a.OutputTokens = u.InputTokens, u.OutputTokens
		if inbox, err := r.p.Inbox(ctx, c.Agent.Name); err == nil {
			a.Unread = len(inbox)
		}
		s.Agents = append(s.Agents, a)
	}
	var err error
	if s.Entries, err = r.p.LastSeq(ctx); err != nil {
		return nil, err
	}
	if s.Channel, err = r.p.Read(ctx, board.ReadOptions{Limit: summaryTail}); err != nil {
		return nil, err
	}
	if r.f.Context.Enabled {
		s.Document = r.p.Config().Document
		docs, err := r.p.ListDocuments(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if s.Documents[d], err = r.p.ReadDocument(ctx, d); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}
