package main

import (
	"encoding/json"
	"io"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// StreamSchema is the schema_version of every stream-json line.
const StreamSchema = "delta.stream/1"

// streamLine is one line of --format stream-json (and delta log --format
// json): first an init line, then a journal event as it is appended, and
// the run's result last. Every line of run and continue names the run.
type streamLine struct {
	SchemaVersion string         `json:"schema_version"`
	Type          string         `json:"type"` // "init", "event", "delta" or "result"
	RunID         string         `json:"run_id,omitempty"`
	Event         *journal.Event `json:"event,omitempty"`
	// A delta line: a piece of the model's answer as it streams in, of
	// the iteration under way; the THOUGHT event that follows holds it all.
	Iteration int    `json:"iteration,omitempty"`
	Text      string `json:"text,omitempty"`
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
// away; the run goes on. tools are the names the model is offered.
func observer(o driveOpts, show *display, tools []string) func(journal.Event) {
	switch o.format {
	case "stream-json":
		enc := newJSONEncoder(o.std.Out)
		inited := false
		return func(ev journal.Event) {
			show.event(ev)
			if !inited {
				inited = true
				enc.Encode(streamInit(o, tools))
			}
			line := streamEvent(ev)
			line.RunID = o.meta.RunID
			enc.Encode(line)
		}
	case "claude-stream-json":
		cs := &claudeStream{enc: newJSONEncoder(o.std.Out), o: o, tools: tools}
		return func(ev journal.Event) {
			show.event(ev)
			cs.event(ev)
		}
	}
	return show.event
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
