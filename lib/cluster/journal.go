package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers each mirrored journal line carries besides the line itself:
// the writer's epoch (its lease revision) and a hash of the line before
// it, so that a fork or a hole in a run's history is detected, never
// merged. Nats-Msg-Id is "<run>:<seq>", which makes a retried publish a
// duplicate the server drops.
const (
	HeaderEpoch = "Delta-Epoch"
	HeaderPrev  = "Delta-Prev"
)

// ErrFenced is an append refused because another writer appended to the
// run since this one last did: this writer no longer holds the run and
// must stop without writing more.
var ErrFenced = errors.New("another holder has written to this run's journal in the cluster")

// Entry is one mirrored journal line.
type Entry struct {
	Line      []byte // the exact journal line, without its newline
	Seq       int    // the event's seq (from the message id)
	StreamSeq uint64 // its sequence in the journal stream
	Epoch     uint64
	Prev      string
}

// LineHash is the short hash of a journal line that the next line's
// Delta-Prev holds.
func LineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:8])
}

// JournalWriter appends one run's events to its mirrored journal, each
// append conditional on the run's last stream sequence (the fence).
type JournalWriter struct {
	c       *Cluster
	run     string
	epoch   uint64
	lastSub uint64 // stream sequence of the run's last mirrored line, 0: none
	lastSeq int    // its event seq
	prev    string // its hash
	// Retry bounds how long one append keeps retrying an ambiguous or
	// failed publish (a leader election, a lost connection); 0: 30 s.
	Retry time.Duration
}

// OpenJournal reads where run's mirrored journal ends and returns a
// writer that appends after it with the given epoch.
func (c *Cluster) OpenJournal(ctx context.Context, run string, epoch uint64) (*JournalWriter, error) {
	w := &JournalWriter{c: c, run: run, epoch: epoch}
	last, err := c.lastEntry(ctx, run)
	if err != nil {
		return nil, err
	}
	if last != nil {
		w.lastSub, w.lastSeq, w.prev = last.StreamSeq, last.Seq, LineHash(last.Line)
	}
	return w, nil
}

// LastSeq is the event seq of the run's last mirrored line (0: none).
func (w *JournalWriter) LastSeq() int { return w.lastSeq }

// Append mirrors one journal line with event seq seq, which must follow
// the last mirrored one. It returns once the cluster has stored it (or
// already had it), ErrFenced when another writer got there first, or the
// last error when the cluster did not answer within the retry bound.
func (w *JournalWriter) Append(ctx context.Context, line []byte, seq int) error {
	if seq != w.lastSeq+1 {
		return fmt.Errorf("mirror run %s: event seq %d does not follow the cluster's %d", w.run, seq, w.lastSeq)
	}
	msg := nats.NewMsg(JournalSubject(w.run))
	msg.Data = line
	msg.Header.Set(HeaderEpoch, strconv.FormatUint(w.epoch, 10))
	if w.prev != "" {
		msg.Header.Set(HeaderPrev, w.prev)
	}
	id := w.run + ":" + strconv.Itoa(seq)
	limit := w.Retry
	if limit == 0 {
		limit = 30 * time.Second
	}
	deadline := time.Now().Add(limit)
	for attempt := 0; ; attempt++ {
		// Each try is bounded too: a publish nobody acknowledges (a
		// leader cut off from its majority) would otherwise wait for all
		// of ctx, past the retry bound.
		try := time.Now().Add(attemptTimeout)
		if try.After(deadline) {
			try = deadline
		}
		actx, cancel := context.WithDeadline(ctx, try)
		ack, err := w.c.JS.PublishMsg(actx, msg, jetstream.WithMsgID(id), jetstream.WithExpectLastSequencePerSubject(w.lastSub))
		cancel()
		if err == nil && ack.Duplicate {
			// The id <run>:<seq> is already stored: by an earlier try of
			// ours, or by another holder that wrote this seq first. The
			// cluster checks the id before the fence, so only the stored
			// line tells which.
			err = w.checkDuplicate(ctx, ack.Sequence, seq, line)
			if err != nil {
				return err
			}
		}
		if err == nil {
			w.landed(ack.Sequence, seq, line)
			return nil
		}
		if IsWrongLastSequence(err) {
			// An earlier try may have landed without its answer reaching
			// us: then the run's last line is ours.
			last, lerr := w.c.lastEntry(ctx, w.run)
			if lerr == nil && last != nil && last.Seq == seq && LineHash(last.Line) == LineHash(line) {
				w.landed(last.StreamSeq, seq, line)
				return nil
			}
			return fmt.Errorf("mirror run %s event %d: %w", w.run, seq, ErrFenced)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("mirror run %s event %d: the cluster did not store it: %w", w.run, seq, err)
		}
		backoff(ctx, attempt)
	}
}

// checkDuplicate returns nil when the message stored at streamSeq, which
// the cluster called a duplicate of event seq, is this very line, and
// ErrFenced when another writer's line holds that seq.
func (w *JournalWriter) checkDuplicate(ctx context.Context, streamSeq uint64, seq int, line []byte) error {
	st, err := w.c.stream(ctx, JournalStream)
	if err != nil {
		return err
	}
	raw, err := st.GetMsg(ctx, streamSeq)
	if err != nil {
		return fmt.Errorf("mirror run %s event %d: read the copy the cluster already has: %w", w.run, seq, err)
	}
	if raw.Subject != JournalSubject(w.run) || !bytes.Equal(raw.Data, line) {
		return fmt.Errorf("mirror run %s event %d: %w", w.run, seq, ErrFenced)
	}
	return nil
}

// attemptTimeout bounds one publish of an append; a timed-out publish is
// retried with the same message id, which the cluster deduplicates.
const attemptTimeout = 5 * time.Second

func (w *JournalWriter) landed(streamSeq uint64, seq int, line []byte) {
	w.lastSub, w.lastSeq, w.prev = streamSeq, seq, LineHash(line)
}

// IsWrongLastSequence reports whether err is JetStream refusing a write
// that expected another last sequence or revision: someone else wrote first.
func IsWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
	}
	return false
}

// backoff waits a little longer after each failed attempt, at most 1 s.
func backoff(ctx context.Context, attempt int) {
	d := time.Duration(50<<min(attempt, 4)) * time.Millisecond
	select {
	case <-ctx.Done():
	case <-time.After(min(d, time.Second)):
	}
}

// lastEntry returns run's last mirrored line, nil when it has none.
func (c *Cluster) lastEntry(ctx context.Context, run string) (*Entry, error) {
	st, err := c.stream(ctx, JournalStream)
	if err != nil {
		return nil, err
	}
	raw, err := Retrying(ctx, func(ctx context.Context) (*jetstream.RawStreamMsg, error) {
		return st.GetLastMsgForSubject(ctx, JournalSubject(run))
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s's journal in the cluster: %w", run, err)
	}
	e := entryOf(raw.Header, raw.Data, raw.Sequence)
	return &e, nil
}

func entryOf(h nats.Header, data []byte, streamSeq uint64) Entry {
	e := Entry{Line: data, StreamSeq: streamSeq, Prev: h.Get(HeaderPrev)}
	e.Epoch, _ = strconv.ParseUint(h.Get(HeaderEpoch), 10, 64)
	if id := h.Get(jetstream.MsgIDHeader); id != "" {
		if i := strings.LastIndexByte(id, ':'); i >= 0 {
			e.Seq, _ = strconv.Atoi(id[i+1:])
		}
	}
	return e
}

// Chain checks one entry against the one before it (nil for the first):
// seq contiguous from 1, the hash chain unbroken, the epoch never going
// back. A failure means the cluster's copy of the run forked or lost a
// line; it is reported, never repaired.
func Chain(before *Entry, e Entry) error {
	if before == nil {
		if e.Seq != 1 {
			return fmt.Errorf("the mirrored journal starts at seq %d, not 1", e.Seq)
		}
		return nil
	}
	switch {
	case e.Seq != before.Seq+1:
		return fmt.Errorf("the mirrored journal jumps from seq %d to %d", before.Seq, e.Seq)
	case e.Prev != LineHash(before.Line):
		return fmt.Errorf("the mirrored journal's line %d does not follow line %d (hash chain broken)", e.Seq, before.Seq)
	case e.Epoch < before.Epoch:
		return fmt.Errorf("the mirrored journal's line %d was written by an older holder (epoch %d after %d)", e.Seq, e.Epoch, before.Epoch)
	}
	return nil
}
