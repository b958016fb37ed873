package natsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/workflow/board"
	"github.com/nats-io/nats.go/jetstream"
)

// The channel: a stream of its own, one message per entry.

// AppendEntry publishes e with the next seq, expecting the stream's last
// sequence to be the one read: when another appender got there first, it
// reads again and retries.
func (s *store) AppendEntry(e board.Entry) (board.Entry, bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	msgID := "ref:" + e.Ref
	if e.Ref == "" {
		var rnd [12]byte
		_, _ = rand.Read(rnd[:])
		msgID = "new:" + hex.EncodeToString(rnd[:])
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = s.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	for attempt := 0; ; attempt++ {
		old, found, last, err := s.lookRef(e.Ref)
		if err != nil || found {
			return old, found, err
		}
		e.Seq = last + 1
		data, _ := json.Marshal(e)
		ack, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.PubAck, error) {
			return s.c.JS.Publish(ctx, cluster.BoardSubject(s.instance), data,
				jetstream.WithExpectLastSequence(uint64(last)), jetstream.WithMsgID(msgID))
		})
		if cluster.IsWrongLastSequence(err) && ctx.Err() == nil {
			pause(attempt)
			continue
		}
		if err != nil {
			return board.Entry{}, false, fmt.Errorf("append to workflow channel: %w", err)
		}
		if ack.Duplicate {
			// An earlier try of this append (its answer lost), or
			// another appender of the same Ref, stored it already.
			old, err := s.entryAt(int64(ack.Sequence))
			return old, e.Ref != "", err
		}
		if ack.Sequence != uint64(e.Seq) {
			return board.Entry{}, false, fmt.Errorf("append to workflow channel: stored as seq %d, expected %d", ack.Sequence, e.Seq)
		}
		return e, false, nil
	}
}

// lookRef finds the entry carrying ref, if any, and says the channel's
// last seq as it read it: the entries when it had to read them for ref
// (one look at the stream, not two), else the stream's last sequence.
func (s *store) lookRef(ref string) (old board.Entry, found bool, last int64, err error) {
	if ref == "" {
		last, err = s.LastSeq()
		return board.Entry{}, false, last, err
	}
	all, err := s.Entries()
	if err != nil {
		return board.Entry{}, false, 0, err
	}
	for _, e := range all {
		if e.Ref == ref {
			return e, true, 0, nil
		}
	}
	return board.Entry{}, false, int64(len(all)), nil
}

func (s *store) entryAt(seq int64) (board.Entry, error) {
	all, err := s.Entries()
	if err != nil {
		return board.Entry{}, err
	}
	if seq < 1 || seq > int64(len(all)) {
		return board.Entry{}, fmt.Errorf("workflow channel: no entry %d", seq)
	}
	return all[seq-1], nil
}

// Entries reads the entries appended since the last call, then returns
// them all.
func (s *store) Entries() ([]board.Entry, error) {
	last, err := s.LastSeq()
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	for seq := int64(len(s.cache)) + 1; seq <= last; seq++ {
		m, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.RawStreamMsg, error) { return s.st.GetMsg(ctx, uint64(seq)) })
		if err != nil {
			return nil, fmt.Errorf("read workflow channel entry %d: %w", seq, err)
		}
		var e board.Entry
		if err := json.Unmarshal(m.Data, &e); err != nil || e.Seq != seq {
			return nil, fmt.Errorf("workflow channel entry %d is not an entry of seq %d (%v)", seq, seq, err)
		}
		s.cache = append(s.cache, e)
	}
	return append([]board.Entry(nil), s.cache[:last]...), nil
}

func (s *store) LastSeq() (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	info, err := cluster.Retrying(ctx, func(ctx context.Context) (*jetstream.StreamInfo, error) { return s.st.Info(ctx) })
	if err != nil {
		return 0, fmt.Errorf("workflow channel: %w", err)
	}
	return int64(info.State.LastSeq), nil
}

func (s *store) Wait(ctx context.Context, afterSeq int64) (int64, error) {
	for {
		changed := s.n.Changed()
		last, err := s.LastSeq()
		if err != nil || last > afterSeq {
			return last, err
		}
		t := time.NewTimer(wakeEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}
