package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// chat records the model call whose answer THOUGHT ev holds: it ended when
// the THOUGHT was written and began its io/invocations record's duration
// before (or, without the record, when the event before it was written).
func (b *builder) chat(ev *journal.Event) {
	start := b.callStart()
	if d, ok := invocationDuration(b.runDir, ev.InvocationRef); ok {
		if s := ev.Timestamp.Add(-d); s.After(start) {
			start = s
		}
	}
	s := b.startChat(ev, start)
	attrs := []attribute.KeyValue{}
	if ev.Model != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", ev.Model))
	}
	if ev.ResponseID != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.id", ev.ResponseID))
	}
	if ev.Usage != nil {
		attrs = append(attrs, usageAttrs(*ev.Usage)...)
		b.usage = b.usage.Add(*ev.Usage)
	}
	if len(ev.ToolCalls) > 0 {
		attrs = append(attrs, attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool_calls"}))
	}
	s.span.SetAttributes(attrs...)
	b.end(s, ev.Timestamp)
}

// callStart is when a model call or a tool call with no event of its own
// began: when the event before it was written, within the iteration.
func (b *builder) callStart() time.Time {
	start := b.last
	if p := b.current(); start.Before(p.start) {
		start = p.start
	}
	return start
}

// startChat opens the chat span of the model call ev ends.
func (b *builder) startChat(ev *journal.Event, start time.Time) *openSpan {
	model := ev.Model
	if model == "" {
		model = b.cfg.Model
	}
	name := "chat"
	if model != "" {
		name += " " + model
	}
	attrs := append(b.providerAttrs(), attribute.String("gen_ai.operation.name", "chat"))
	return b.start(b.current(), "chat", ev.Seq, name, start, trace.SpanKindClient, attrs...)
}

// usageAttrs are the token counts of u.
func usageAttrs(u llm.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens),
	}
	if u.CacheReadTokens > 0 {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.cache_read.input_tokens", u.CacheReadTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.cache_creation.input_tokens", u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.reasoning.output_tokens", u.ReasoningTokens))
	}
	return attrs
}

// startTool opens the execute_tool span of ACTION_REQUEST ev.
func (b *builder) startTool(ev *journal.Event) {
	b.tools[ev.CallID] = b.start(b.current(), "execute_tool", ev.Seq, "execute_tool "+ev.ToolName, ev.Timestamp, trace.SpanKindInternal,
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", ev.ToolName),
		attribute.String("gen_ai.tool.call.id", ev.CallID),
		attribute.String("gen_ai.tool.type", "function"))
}

// endTool closes the tool call ACTION_RESULT ev answers (a result whose
// request came before a crash gets a span of its own).
func (b *builder) endTool(ev *journal.Event) {
	s, ok := b.tools[ev.CallID]
	if !ok {
		b.startTool(&journal.Event{Seq: ev.Seq, Timestamp: b.callStart(), CallID: ev.CallID, ToolName: ev.ToolName})
		s = b.tools[ev.CallID]
	}
	delete(b.tools, ev.CallID)
	if ev.ExitCode != nil {
		s.span.SetAttributes(attribute.Int("delta.tool.exit_code", *ev.ExitCode))
	}
	if ev.IsError {
		s.span.SetStatus(codes.Error, firstLine(ev.ObservationContent))
		s.span.SetAttributes(attribute.String("error.type", "tool_error"))
	}
	b.end(s, ev.Timestamp)
}

// endTools ends the tool calls that never got a result.
func (b *builder) endTools(at time.Time) {
	for id, s := range b.tools {
		s.span.SetStatus(codes.Error, "the tool call got no result")
		s.span.SetAttributes(attribute.String("error.type", "no_result"))
		b.end(s, at)
		delete(b.tools, id)
	}
}

// error records an ERROR event: a model call that failed after its
// retries is a chat span of its own with the error; the others (a broken
// stream retried, the context, the iteration limit) are span events, and
// all but a retried stream mark the iteration as failed.
func (b *builder) error(ev *journal.Event) {
	var details struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(ev.ErrorDetails, &details)
	kind := details.Type
	if kind == "" {
		kind = "error"
	}
	if kind == "llm_error" {
		s := b.startChat(ev, b.callStart())
		s.span.SetStatus(codes.Error, ev.ErrorMessage)
		s.span.SetAttributes(attribute.String("error.type", kind))
		b.end(s, ev.Timestamp)
	}
	cur := b.current()
	cur.span.AddEvent("exception", trace.WithTimestamp(ev.Timestamp), trace.WithAttributes(
		attribute.String("exception.type", kind), attribute.String("exception.message", ev.ErrorMessage)))
	if kind != "partial_answer" {
		cur.span.SetStatus(codes.Error, ev.ErrorMessage)
		cur.span.SetAttributes(attribute.String("error.type", kind))
	}
}

// invocationDuration reads the duration of a model call from the head of
// its io/invocations record (iteration, timestamp and duration_ms come
// before the request, which can be large).
func invocationDuration(runDir, ref string) (time.Duration, bool) {
	if ref == "" || !filepath.IsLocal(filepath.FromSlash(ref)) {
		return 0, false
	}
	f, err := os.Open(filepath.Join(runDir, filepath.FromSlash(ref)))
	if err != nil {
		return 0, false // written behind the journal: not there yet
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 4096))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	for range 4 {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok || key == "request" {
			return 0, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, false
		}
		if key == "duration_ms" {
			ms, err := strconv.ParseInt(string(v), 10, 64)
			return time.Duration(ms) * time.Millisecond, err == nil && ms >= 0
		}
	}
	return 0, false
}

// firstLine is the first line of s, cut to a status description's length.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
