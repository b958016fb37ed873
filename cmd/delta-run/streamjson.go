package main

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/redact"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// StreamSchema is the schema_version of every stream-json line.
const StreamSchema = "delta.stream/1"

// streamLine is one line of --format stream-json (and delta log --format
// json): first an init line, then a journal event as it is appended, and
// the run's result last; between them, tool_output lines while a tool
// runs, and the events of the run's subagents. Every line of run and
// continue names the run it is about (a subagent's lines also its
// parent).
type streamLine struct {
	SchemaVersion string `json:"schema_version"`
	// "init", "event", "delta", "tool_output" or "result"
	Type        string         `json:"type"`
	RunID       string         `json:"run_id,omitempty"`
	ParentRunID string         `json:"parent_run_id,omitempty"`
	Event       *journal.Event `json:"event,omitempty"`
	// A delta line: a piece of the model's answer as it streams in, of
	// the iteration under way; the THOUGHT event that follows holds it all.
	Iteration int `json:"iteration,omitempty"`
	// A tool_output line: a piece of the output of the running call
	// CallID on Stream (stdout or stderr), after Skipped bytes left out
	// (transient: the call's record keeps the whole output).
	CallID  string `json:"call_id,omitempty"`
	Stream  string `json:"stream,omitempty"`
	Text    string `json:"text,omitempty"`
	Skipped int64  `json:"skipped,omitempty"`
	// The init line: what the run works with.
	Model    string   `json:"model,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	// The result line: whether the run did not complete, and its model
	// turns (iterations), for scripts that read only this line's top.
	IsError  *bool        `json:"is_error,omitempty"`
	NumTurns *int         `json:"num_turns,omitempty"`
	Result   *runs.Result `json:"result,omitempty"`
}

func streamEvent(ev journal.Event) streamLine {
	return streamLine{SchemaVersion: StreamSchema, Type: "event", Event: &ev}
}

// streamInit is the first line of a run's stream-json.
func streamInit(o driveOpts, tools []string) streamLine {
	return streamLine{SchemaVersion: StreamSchema, Type: "init", RunID: o.meta.RunID, Model: o.llmConfig.Model,
		Provider: o.llmConfig.Provider, Cwd: o.meta.ToolDir(), Tools: tools}
}

// streamResult is the last line of a run's stream-json.
func streamResult(r runs.Result) streamLine {
	isErr, turns := r.Status != runs.Completed, r.Metrics.Iterations
	return streamLine{SchemaVersion: StreamSchema, Type: "result", RunID: r.RunID, IsError: &isErr, NumTurns: &turns, Result: &r}
}

// observer is what sees each event as it is journaled: the live stream on
// stderr and, with --format stream-json or claude-stream-json, lines on
// stdout. Like the live stream, stdout is dropped when its reader goes
// away; the run goes on. tools are the names the model is offered. Both
// also show the run's running tools' output and its subagents' events
// (liveView), which show.endLive stops following.
func observer(o driveOpts, show *display, tools []string, r *redact.Redactor) func(journal.Event) {
	sinks := multiSink{displaySink{show}}
	own := func(journal.Event) {}
	switch o.format {
	case "stream-json":
		enc := newJSONEncoder(o.std.Out)
		inited := false
		sinks = append(sinks, jsonSink{enc})
		own = func(journal.Event) {
			if !inited {
				inited = true
				enc.Encode(streamInit(o, tools))
			}
		}
	case "claude-stream-json":
		// Claude Code's format has no place for either: only the run's
		// own events.
		cs := &claudeStream{enc: newJSONEncoder(o.std.Out), o: o, tools: tools}
		own = cs.event
	}
	ref := runRef{id: o.meta.RunID, parent: o.meta.ParentRunID}
	root := newFollower(ref, o.meta.WorkDir, o.runDir, false, o.agent.Subagents.Enabled, r)
	if root.children != nil {
		// Subagents left from earlier invocations show what they do
		// from now on.
		root.skipToEnd()
	}
	v := startLiveView(root, sinks)
	show.live = v
	return func(ev journal.Event) {
		own(ev)
		v.observe(ev)
	}
}

// textSink is what gets the model's text as it streams: the live stream
// on a terminal, and delta lines with --format stream-json. nil when
// nobody would see it: the model is then asked without streaming.
func textSink(o driveOpts, show *display) func(string) {
	wantJSON := o.format == "stream-json"
	if !show.streamText && !wantJSON {
		return nil
	}
	var enc *json.Encoder
	if wantJSON {
		enc = newJSONEncoder(o.std.Out)
	}
	return func(delta string) {
		if show.streamText {
			show.text(delta)
		}
		if enc != nil {
			enc.Encode(streamLine{SchemaVersion: StreamSchema, Type: "delta", RunID: o.meta.RunID, Iteration: show.shownIteration, Text: delta})
		}
	}
}

// newJSONEncoder writes one JSON value a line, "<" and "&" as they are.
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// livePoll is how often the live view of a run reads its tools' output
// and its subagents' journals: often enough to watch, seldom enough to
// cost nothing.
const livePoll = 200 * time.Millisecond

// liveView is the live view of the run this process drives: the engine
// hands it the run's events, a poller reads the rest (runFollower).
type liveView struct {
	mu   sync.Mutex
	root *runFollower
	sink liveSink
	stop chan struct{}
	done chan struct{}
}

func startLiveView(root *runFollower, sink liveSink) *liveView {
	v := &liveView{root: root, sink: sink, stop: make(chan struct{}), done: make(chan struct{})}
	go v.run()
	return v
}

func (v *liveView) run() {
	defer close(v.done)
	t := time.NewTicker(livePoll)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			_ = v.root.poll(v.sink)
			v.mu.Unlock()
		}
	}
}

// observe shows one of the run's own events.
func (v *liveView) observe(ev journal.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.root.handle(ev, v.sink)
}

// end stops the view, after a last look at what the subagents wrote.
func (v *liveView) end() {
	if v == nil {
		return
	}
	close(v.stop)
	<-v.done
	v.mu.Lock()
	defer v.mu.Unlock()
	_ = v.root.poll(v.sink)
	v.root.close()
}

// jsonSink writes a live view as stream-json lines.
type jsonSink struct{ enc *json.Encoder }

func (s jsonSink) event(r runRef, ev journal.Event) {
	line := streamEvent(ev)
	line.RunID, line.ParentRunID = r.id, r.parent
	s.enc.Encode(line)
}

func (s jsonSink) output(r runRef, o toolOutput) {
	s.enc.Encode(streamLine{SchemaVersion: StreamSchema, Type: "tool_output", RunID: r.id, ParentRunID: r.parent,
		CallID: o.CallID, Stream: o.Stream, Text: o.Text, Skipped: o.Skipped})
}

// displaySink shows a live view on the text display.
type displaySink struct{ d *display }

func (s displaySink) event(r runRef, ev journal.Event) {
	if r.label == "" {
		s.d.event(ev)
		return
	}
	s.d.childEvent(r.label, ev)
}

func (s displaySink) output(r runRef, o toolOutput) { s.d.toolOutput(r.label, o) }

// multiSink writes to every sink in turn.
type multiSink []liveSink

func (m multiSink) event(r runRef, ev journal.Event) {
	for _, s := range m {
		s.event(r, ev)
	}
}

func (m multiSink) output(r runRef, o toolOutput) {
	for _, s := range m {
		s.output(r, o)
	}
}
