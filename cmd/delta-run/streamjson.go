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
// json): a journal event as it is appended, or the run's result last.
type streamLine struct {
	SchemaVersion string         `json:"schema_version"`
	Type          string         `json:"type"` // "event", "delta" or "result"
	Event         *journal.Event `json:"event,omitempty"`
	// A delta line: a piece of the model's answer as it streams in, of
	// the iteration under way; the THOUGHT event that follows holds it all.
	Iteration int          `json:"iteration,omitempty"`
	Text      string       `json:"text,omitempty"`
	Result    *runs.Result `json:"result,omitempty"`
}

func streamEvent(ev journal.Event) streamLine {
	return streamLine{SchemaVersion: StreamSchema, Type: "event", Event: &ev}
}

// observer is what sees each event as it is journaled: the live stream on
// stderr and, with --format stream-json, a line on stdout. Like the live
// stream, stdout is dropped when its reader goes away; the run goes on.
func observer(o driveOpts, show *display) func(journal.Event) {
	if o.format != "stream-json" {
		return show.event
	}
	enc := newJSONEncoder(o.std.Out)
	return func(ev journal.Event) {
		show.event(ev)
		enc.Encode(streamEvent(ev))
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
			enc.Encode(streamLine{SchemaVersion: StreamSchema, Type: "delta", Iteration: show.shownIteration, Text: delta})
		}
	}
}

// newJSONEncoder writes one JSON value a line, "<" and "&" as they are.
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
