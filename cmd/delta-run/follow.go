package main

import (
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// A live view of a run (the run's own stream, delta log -f) shows more
// than its journal: the output of its running tools, read from the files
// their ACTION_REQUEST names, and the events of its subagents, read from
// their journals, each tagged with the run it comes from. Both are read by
// polling files on disk, so a view in another process sees exactly what
// the run's own stream shows, and the engine pays nothing for them. The
// tool output is transient (never journaled: the call's record keeps it
// all) and throttled: each poll reads at most maxOutputChunk of each
// file, skipping what a fast tool printed in between, so following a tool
// that prints a gigabyte costs a few reads per poll.

// runRef names the run a line of a live view comes from: its id, its
// parent's ("" for a top-level run) and, for a subagent of the run the
// view follows, its label (the id below the followed run: sub1, sub1.sub2).
type runRef struct {
	id, parent, label string
}

// liveSink is what a live view writes to: the text display, stream-json.
type liveSink interface {
	event(r runRef, ev journal.Event)
	output(r runRef, o toolOutput)
}

// toolOutput is a piece of a running call's output.
type toolOutput struct {
	CallID, Stream, Text string
	// Skipped is how many bytes of the stream before Text were left out
	// (the tool printed faster than the view reads).
	Skipped int64
}

// runFollower follows one run: its events (from its journal, or handed
// in by the engine that runs it), its running calls' output and,
// when children is set, its subagents, each with a runFollower of its own.
type runFollower struct {
	ref     runRef
	runDir  string
	workDir string
	// journal is nil when the engine hands the events in (handle).
	journal *journal.Tail
	calls   []*callTail
	// children are the followed subagents, by id; nil: not followed.
	children map[string]*runFollower
	order    []string
	redact   *redact.Redactor
}

// newFollower follows the run in runDir of workspace workDir; fromJournal
// reads its events from its journal, withChildren follows its subagents
// too.
func newFollower(ref runRef, workDir, runDir string, fromJournal, withChildren bool, r *redact.Redactor) *runFollower {
	f := &runFollower{ref: ref, runDir: runDir, workDir: workDir, redact: r}
	if fromJournal {
		f.journal = journal.NewTail(filepath.Join(runDir, runs.JournalFile))
	}
	if withChildren {
		f.children = map[string]*runFollower{}
	}
	return f
}

// handle shows one event of the run, starting or ending the following of
// a call's output: a call's last output comes before its ACTION_RESULT.
func (f *runFollower) handle(ev journal.Event, sink liveSink) {
	switch ev.Type {
	case journal.ActionRequest:
		sink.event(f.ref, ev)
		if ev.OutputFile != "" || ev.StderrFile != "" {
			f.calls = append(f.calls, newCallTail(f.runDir, ev))
		}
		return
	case journal.ActionResult:
		f.endCalls(sink, func(c *callTail) bool { return c.id == ev.CallID })
	case journal.EngineEnd:
		f.endCalls(sink, func(*callTail) bool { return true })
	}
	sink.event(f.ref, ev)
}

// endCalls shows the rest of the output of the calls that end, and stops
// following them.
func (f *runFollower) endCalls(sink liveSink, ends func(*callTail) bool) {
	kept := f.calls[:0]
	for _, c := range f.calls {
		if !ends(c) {
			kept = append(kept, c)
			continue
		}
		if c.polled {
			// A call that ended before the view first looked at it
			// shows its output in its result only: a view reading a
			// finished run shows no output of the past.
			c.read(f, sink, true)
		}
		c.close()
	}
	clear(f.calls[len(kept):])
	f.calls = kept
}

// poll shows what was written since the last poll: new events (when the
// run's journal is followed), its calls' output, its subagents' news.
func (f *runFollower) poll(sink liveSink) error {
	if f.journal != nil {
		evs, err := f.journal.Next()
		for _, ev := range evs {
			f.handle(ev, sink)
		}
		if err != nil {
			return err
		}
	}
	for _, c := range f.calls {
		c.polled = true
		c.read(f, sink, false)
	}
	if f.children == nil {
		return nil
	}
	f.discover(true)
	for _, id := range f.order {
		// A child's journal that cannot be read is not the view's
		// failure: the child may still be being created.
		_ = f.children[id].poll(sink)
	}
	return nil
}

// discover starts following the subagents that appeared since the last
// look; fromStart shows their events from the first, else (children that
// were there before this view started) from now on.
func (f *runFollower) discover(fromStart bool) {
	ids, err := runs.ChildRunIDs(f.workDir, f.ref.id)
	if err != nil {
		return
	}
	for _, id := range ids {
		if _, ok := f.children[id]; ok {
			continue
		}
		label := strings.TrimPrefix(id, f.ref.id+".")
		if f.ref.label != "" {
			label = f.ref.label + "." + label
		}
		child := newFollower(runRef{id: id, parent: f.ref.id, label: label}, f.workDir,
			filepath.Join(f.workDir, runs.ControlDir, id), true, true, f.redact)
		if !fromStart {
			child.skipToEnd()
		}
		f.children[id] = child
		f.order = append(f.order, id)
	}
}

// skipToEnd makes the follower show only what its run writes from now
// on, here and in its subagents.
func (f *runFollower) skipToEnd() {
	if f.journal != nil {
		f.journal.SkipToEnd()
	}
	if f.children != nil {
		f.discover(false)
	}
}

// running reports whether the run or one of the followed subagents is
// still running.
func (f *runFollower) running() bool {
	if runs.StillRunning(f.runDir) {
		return true
	}
	for _, c := range f.children {
		if c.running() {
			return true
		}
	}
	return false
}

// close stops following every call (the view ends).
func (f *runFollower) close() {
	for _, c := range f.calls {
		c.close()
	}
	f.calls = nil
	for _, c := range f.children {
		c.close()
	}
}
