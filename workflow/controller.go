package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/workflow/board"
)

// Controller states.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	// StatusWaiting: the agent's run waits for a human (ask_human or an
	// approval); it goes on once answered.
	StatusWaiting = "waiting"
	// StatusFailed: the last delivery failed every attempt (or at once,
	// with a configuration or permission error no retry can fix); its
	// messages stay unread and are tried again when a new one arrives.
	StatusFailed  = "failed"
	StatusStopped = "stopped"
)

// Retry is the retry policy of a delivery.
type Retry struct {
	MaxAttempts int           // default 3
	Backoff     time.Duration // before the second attempt; default 1s
	Multiplier  float64       // default 2
}

func (r Retry) withDefaults() Retry {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = 3
	}
	if r.Backoff <= 0 {
		r.Backoff = time.Second
	}
	if r.Multiplier <= 0 {
		r.Multiplier = 2
	}
	return r
}

// delay is the wait after failed attempt n (1-based).
func (r Retry) delay(n int) time.Duration {
	d := float64(r.Backoff)
	for i := 1; i < n; i++ {
		d *= r.Multiplier
	}
	return time.Duration(d)
}

// Delivery is agents/<name>/delivery.json: the inbox messages being
// handed to the agent (up to UpTo), written before the first attempt and
// removed once they are acknowledged or given up. A runner that finds one
// when it starts finishes that delivery first.
type Delivery struct {
	UpTo    int64     `json:"up_to"`
	Mark    int64     `json:"mark"`
	Attempt int       `json:"attempt"`
	Started time.Time `json:"started_at"`
	// Task is the cluster task the current attempt was queued as (an
	// agent on a queue), Round how many tasks the delivery has had: a
	// controller taking over waits for that task rather than queuing
	// another.
	Task  string `json:"task,omitempty"`
	Round int    `json:"round,omitempty"`
	// TaskAttempt is the attempt Task was queued for.
	TaskAttempt int `json:"task_attempt,omitempty"`
}

// Controller drives one agent: idle until its inbox has unread messages
// (woken at once by a mention, or by polling), then it delivers them
// through the backend, acknowledging them only once the agent handled
// them, retrying with backoff when it failed.
type Controller struct {
	Agent    *AgentDef
	Provider board.Provider
	Backend  Backend
	// Dir is the agent's folder in the instance directory.
	Dir string
	// Poll is the fallback polling interval (default 5s).
	Poll  time.Duration
	Retry Retry
	// Prompt builds the digest of a delivery.
	Prompt func(ctx context.Context, inbox []board.InboxMessage, attempt int) string
	// PostAnswer, when set, posts the agent's final answer to the channel
	// (workflows without shared context tools).
	PostAnswer bool
	// Log receives the agent's live output; Events one line per change.
	Log    io.Writer
	Events func(format string, args ...any)
	// Changed is signalled (without blocking) on every state change.
	Changed chan<- struct{}

	wake chan struct{}
	mu   sync.Mutex
	st   AgentStatus
	// gaveUpAt is the last seq of a delivery that failed every attempt:
	// those messages are not retried until a newer one arrives.
	gaveUpAt int64
	cancel   context.CancelFunc
	stopped  bool
}

// Wake makes an idle controller check its inbox now.
func (c *Controller) Wake() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Status returns the controller's state and counters.
func (c *Controller) Status() AgentStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// GaveUpAt is the last seq of messages left unread after failing.
func (c *Controller) GaveUpAt() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gaveUpAt
}

func (c *Controller) setStatus(status, errMsg string) {
	c.mu.Lock()
	changed := c.st.Status != status || c.st.Error != errMsg
	c.st.Status, c.st.Error, c.st.Updated = status, errMsg, time.Now().UTC()
	st := c.st
	c.mu.Unlock()
	if !changed {
		return
	}
	writeJSON(filepath.Join(c.Dir, statusFile), st)
	if c.Changed != nil {
		select {
		case c.Changed <- struct{}{}:
		default:
		}
	}
}

func (c *Controller) event(format string, args ...any) {
	if c.Events != nil {
		c.Events(format, args...)
	}
}

// Stop stops the controller: a run in progress is interrupted (and
// continued when the instance starts again) and no more messages are
// taken.
func (c *Controller) Stop() {
	c.mu.Lock()
	c.stopped = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *Controller) isStopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// Init prepares the controller before Run (its wake channel, its
// recorded state).
func (c *Controller) Init(runID string, runs int) {
	c.wake = make(chan struct{}, 1)
	c.st = AgentStatus{Agent: c.Agent.Name, RunID: runID, Runs: runs}
	c.setStatus(StatusIdle, "")
}

// Run is the controller's loop; it returns when ctx ends or the
// controller is stopped.
func (c *Controller) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.cancel = cancel
	stopped := c.stopped
	c.mu.Unlock()
	defer cancel()
	if stopped {
		cancel()
	}
	poll := c.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			if c.isStopped() {
				c.setStatus(StatusStopped, "")
			}
			return
		case <-c.wake:
		case <-timer.C:
		}
		if err := c.step(ctx); err != nil && ctx.Err() == nil {
			c.event("%s: %v", c.Agent.Name, err)
		}
		if ctx.Err() != nil {
			continue
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(poll)
	}
}

// step delivers the agent's unread messages, if any: the delivery a
// previous runner left first.
func (c *Controller) step(ctx context.Context) error {
	d, err := c.readDelivery()
	if err != nil {
		return err
	}
	inbox, err := c.Provider.Inbox(ctx, c.Agent.Name)
	if err != nil {
		return err
	}
	if d == nil {
		if len(inbox) == 0 {
			c.setStatus(StatusIdle, "")
			return nil
		}
		last := inbox[len(inbox)-1].Entry.Seq
		if last <= c.GaveUpAt() {
			return nil // failed; waits for a newer message
		}
		mark, err := c.Backend.Mark(c.Agent)
		if err != nil {
			return err
		}
		d = &Delivery{UpTo: last, Mark: mark, Started: time.Now().UTC()}
		if err := c.writeDelivery(d); err != nil {
			return err
		}
	}
	return c.deliver(ctx, d, inbox)
}

// deliver runs the attempts of delivery d.
func (c *Controller) deliver(ctx context.Context, d *Delivery, inbox []board.InboxMessage) error {
	retry := c.Retry.withDefaults()
	msgs := delivered(inbox, d)
	if len(msgs) == 0 {
		// Acknowledged meanwhile (the agent's own inbox_ack, a person):
		// nothing is left to deliver. A run still going on is waited for
		// by the next delivery, never started twice.
		return c.removeDelivery()
	}
	waiting := false
	for {
		if d.Attempt == 0 {
			d.Attempt = 1
		}
		if !waiting {
			c.announce(d, len(msgs), retry)
		}
		res := c.Backend.Run(ctx, Job{Agent: c.Agent, Prompt: c.Prompt(ctx, msgs, d.Attempt), Delivery: d, Log: c.Log,
			Record: func() error { return c.writeDelivery(d) }})
		if res.Started {
			c.mu.Lock()
			c.st.Runs++
			c.mu.Unlock()
		}
		switch res.Outcome {
		case Succeeded:
			return c.succeeded(ctx, d, res)
		case Interrupted:
			c.interrupted(ctx)
			return nil
		case Waiting:
			if !waiting {
				c.setStatus(StatusWaiting, "")
				c.event("%s: waiting for a human (answer with: delta continue --run-id %s -m ANSWER)", c.Agent.Name, c.Status().RunID)
			}
			waiting = true
			if !c.sleep(ctx, c.pollOr(5*time.Second), true) {
				return nil
			}
			continue
		case Failed:
			waiting = false
			again, err := c.failed(d, len(msgs), res, retry)
			if err != nil || !again {
				return err
			}
			if !c.sleep(ctx, retry.delay(d.Attempt-1), false) {
				return nil
			}
		}
	}
}

// delivered are the messages of inbox that delivery d delivers.
func delivered(inbox []board.InboxMessage, d *Delivery) []board.InboxMessage {
	var msgs []board.InboxMessage
	for _, m := range inbox {
		if m.Entry.Seq <= d.UpTo {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// announce says that an attempt at delivery d of n messages begins.
func (c *Controller) announce(d *Delivery, n int, retry Retry) {
	c.setStatus(StatusRunning, "")
	if d.Attempt == 1 {
		c.event("%s: handling %d %s", c.Agent.Name, n, plural(n, "message", "messages"))
	} else {
		c.event("%s: attempt %d of %d", c.Agent.Name, d.Attempt, retry.MaxAttempts)
	}
}

// succeeded ends delivery d, which the agent handled: its answer posted
// (with PostAnswer), its messages acknowledged. Stopping the runner does
// not cut that short.
func (c *Controller) succeeded(ctx context.Context, d *Delivery, res Result) error {
	ctx = context.WithoutCancel(ctx)
	if c.PostAnswer && strings.TrimSpace(res.Answer) != "" {
		if err := c.postAnswer(ctx, d, res.Answer); err != nil {
			return err
		}
	}
	if err := c.Provider.Ack(ctx, c.Agent.Name, d.UpTo); err != nil {
		return err
	}
	if err := c.removeDelivery(); err != nil {
		return err
	}
	c.event("%s: done", c.Agent.Name)
	c.setStatus(StatusIdle, "")
	c.Wake() // more may have arrived meanwhile
	return nil
}

// interrupted takes in an interrupted attempt. When the runner is not
// stopping, someone interrupted the agent's run (delta stop): that is
// respected, the agent stops and its messages stay unread until the
// instance starts again.
func (c *Controller) interrupted(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	c.event("%s: its run was interrupted from outside; the agent is stopped until the instance is started again", c.Agent.Name)
	c.Stop()
	c.setStatus(StatusStopped, "")
}

// failed takes in a failed attempt at delivery d of n messages: it
// reports whether to try again (after retry's delay), having recorded the
// next attempt, or gives the delivery up.
func (c *Controller) failed(d *Delivery, n int, res Result, retry Retry) (bool, error) {
	name := c.Agent.Name
	c.event("%s: attempt %d failed: %s", name, d.Attempt, res.Err)
	if !res.Permanent && d.Attempt < retry.MaxAttempts {
		d.Attempt++
		if err := c.writeDelivery(d); err != nil {
			return false, err
		}
		c.setStatus(StatusRunning, res.Err)
		return true, nil
	}
	c.mu.Lock()
	c.gaveUpAt = d.UpTo
	c.mu.Unlock()
	if err := c.removeDelivery(); err != nil {
		return false, err
	}
	unread := fmt.Sprintf("its %d %s unread", n, plural(n, "message stays", "messages stay"))
	if res.Permanent {
		c.event("%s: not retried: a configuration or permission error fails every attempt the same way; %s: fix the agent, then start the instance again (or send it a new message)", name, unread)
		c.setStatus(StatusFailed, "configuration or permission error, not retried: "+res.Err)
		return false, nil
	}
	c.event("%s: gave up after %d attempts; %s", name, d.Attempt, unread)
	c.setStatus(StatusFailed, res.Err)
	return false, nil
}

func (c *Controller) pollOr(d time.Duration) time.Duration {
	if c.Poll > 0 {
		return c.Poll
	}
	return d
}

// sleep waits d, or until a wake-up when wakeable; false when ctx ended.
func (c *Controller) sleep(ctx context.Context, d time.Duration, wakeable bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	wake := c.wake
	if !wakeable {
		wake = nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-wake:
	}
	return true
}

func (c *Controller) deliveryPath() string { return filepath.Join(c.Dir, deliveryF) }

func (c *Controller) readDelivery() (*Delivery, error) {
	var d Delivery
	ok, err := readJSON(c.deliveryPath(), &d)
	if err != nil || !ok {
		return nil, err
	}
	return &d, nil
}

func (c *Controller) writeDelivery(d *Delivery) error {
	if err := writeJSON(c.deliveryPath(), d); err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	return nil
}

func (c *Controller) removeDelivery() error {
	if err := os.Remove(c.deliveryPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// postAnswer posts the agent's answer to a delivery once: a runner killed
// after posting it but before acknowledging finds it on the channel (from
// the agent, after the delivered messages) and does not post it again.
func (c *Controller) postAnswer(ctx context.Context, d *Delivery, answer string) error {
	entries, err := c.Provider.Read(ctx, board.ReadOptions{AfterSeq: d.UpTo})
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.From == c.Agent.Name && e.Message == answer {
			return nil
		}
	}
	_, err = c.Provider.Append(ctx, c.Agent.Name, answer)
	return err
}
