package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// A run's trace and span ids are derived from its run id and the journal
// events the spans start at, so exporting a run twice (or following it and
// exporting it later) sends the same trace with the same spans: a backend
// that keeps both shows one trace, not two copies.

// traceIDOf is the trace of run id.
func traceIDOf(runID string) trace.TraceID {
	sum := sha256.Sum256([]byte("delta trace\x00" + runID))
	var id trace.TraceID
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[0] = 1
	}
	return id
}

// spanIDOf is the span of run id that kind ("invoke_agent", "iteration",
// "chat", "execute_tool") starts at the journal event seq.
func spanIDOf(runID, kind string, seq int64) trace.SpanID {
	sum := sha256.Sum256([]byte("delta span\x00" + runID + "\x00" + kind + "\x00" + strconv.FormatInt(seq, 10)))
	var id trace.SpanID
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[0] = 1
	}
	return id
}

// idKey carries the ids of the span about to start in its context.
type idKey struct{}

type spanIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs returns ctx telling journalIDs the ids of the next span.
func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, idKey{}, spanIDs{t, s})
}

// journalIDs is the SDK's IDGenerator: it hands out the ids withIDs put
// into the context (random ones for a span started without them).
type journalIDs struct{}

func (journalIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if ids, ok := ctx.Value(idKey{}).(spanIDs); ok {
		return ids.trace, ids.span
	}
	var t trace.TraceID
	var s trace.SpanID
	_, _ = rand.Read(t[:])
	_, _ = rand.Read(s[:])
	return t, s
}

func (journalIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if ids, ok := ctx.Value(idKey{}).(spanIDs); ok {
		return ids.span
	}
	var s trace.SpanID
	_, _ = rand.Read(s[:])
	return s
}
