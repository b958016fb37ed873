package journal

import "fmt"

// SeqError is a journal whose seq numbers break the journal's invariant:
// 1, 2, 3 … one line each, in order. It is what a line duplicated, deleted,
// reordered or added by hand (or by a broken tool) leaves behind; the
// journal is refused rather than read into a wrong conversation. It
// matches ErrCorrupt.
type SeqError struct {
	Line  int   // line number in the file, from 1
	Seq   int64 // the seq found there
	After int64 // the seq of the event before (0 at the first)
}

func (e *SeqError) Error() string {
	var fault string
	switch {
	case e.Seq == 0:
		fault = "the event has no seq"
	case e.Seq == e.After:
		fault = fmt.Sprintf("seq %d appears twice (a duplicated line)", e.Seq)
	case e.Seq < e.After:
		fault = fmt.Sprintf("seq %d comes after seq %d (lines out of order, or a line added)", e.Seq, e.After)
	default:
		fault = fmt.Sprintf("seq %d follows seq %d: %s missing (a deleted line)", e.Seq, e.After, missing(e.After+1, e.Seq-1))
	}
	return fmt.Sprintf("line %d: %s; the journal was changed outside Delta: restore it from a copy, or move the run aside and start a new one", e.Line, fault)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *SeqError) Is(target error) bool { return target == ErrCorrupt }

func missing(from, to int64) string {
	if from == to {
		return fmt.Sprintf("seq %d is", from)
	}
	return fmt.Sprintf("seq %d to %d are", from, to)
}

// seqChecker follows the seq numbers of a journal's events in file order.
// Journals written before seq existed (no event has one) pass.
type seqChecker struct {
	last   int64
	events int
	legacy bool // the first event had no seq
}

// next checks the event found on line.
func (c *seqChecker) next(line int, seq int64) error {
	c.events++
	if c.events == 1 && seq == 0 {
		c.legacy = true
	}
	if c.legacy {
		if seq != 0 {
			return &SeqError{Line: line, Seq: seq, After: c.last}
		}
		return nil
	}
	if seq != c.last+1 {
		return &SeqError{Line: line, Seq: seq, After: c.last}
	}
	c.last = seq
	return nil
}
