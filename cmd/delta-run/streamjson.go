package main

import (
	"encoding/json"

	"github.com/deltakit/delta/lib/journal"
)

// StreamSchema is the schema_version of every stream-json line.
const StreamSchema = "delta.stream/1"

// streamLine is one line of --format stream-json (and delta log --format
// json): a journal event as it is appended, or the run's result last.
type streamLine struct {
	SchemaVersion string         `json:"schema_version"`
	Type          string         `json:"type"` // "event" or "result"
	Event         *journal.Event `json:"event,omitempty"`
	Result        *RunResult     `json:"result,omitempty"`
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
	enc := json.NewEncoder(o.std.Out)
	enc.SetEscapeHTML(false)
	return func(ev journal.Event) {
		show.event(ev)
		enc.Encode(streamEvent(ev))
	}
}
