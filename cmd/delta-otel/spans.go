package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// builder turns one run's journal events, in order, into spans: an
// invoke_agent span for each invocation of the engine (delta run, then
// each delta continue), under it a span per iteration, and under those a
// chat span per model call and an execute_tool span per tool call. A span
// starts when the event that opens it arrives and ends when the event that
// closes it does, with the journal's timestamps, so that following a live
// run exports each span as soon as it is complete, and exporting the
// finished run later sends the same spans.
type builder struct {
	ctx    context.Context
	tracer trace.Tracer
	runID  string
	runDir string // where the io/invocations records are (model call durations)
	trace  trace.TraceID

	agent *openSpan            // the current invocation's invoke_agent span
	iter  *openSpan            // the current iteration's span
	iterN int                  // its number
	tools map[string]*openSpan // execute_tool spans by call id
	cfg   startConfig          // the current invocation's ENGINE_START config
	usage llm.Usage            // the current invocation's token usage
	last  time.Time            // timestamp of the last event seen
	ended int                  // spans ended so far (the follower flushes when it grows)
}

// openSpan is a started span and the time of its last event.
type openSpan struct {
	ctx   context.Context
	span  trace.Span
	start time.Time
	last  time.Time
}

// startConfig is what a span needs of ENGINE_START's config.
type startConfig struct {
	AgentName string `json:"agent_name"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

func newBuilder(ctx context.Context, tracer trace.Tracer, runID, runDir string) *builder {
	return &builder{ctx: ctx, tracer: tracer, runID: runID, runDir: runDir, trace: traceIDOf(runID), tools: map[string]*openSpan{}}
}

// event takes the next journal event.
func (b *builder) event(ev *journal.Event) {
	if b.agent == nil && ev.Type != journal.EngineStart {
		// A journal that does not begin with ENGINE_START (cut by hand):
		// its events still belong to an invocation.
		b.startAgent(&journal.Event{Seq: ev.Seq, Timestamp: ev.Timestamp})
	}
	if ev.Iteration != 0 && ev.Iteration != b.iterN && ev.Type != journal.EngineEnd {
		b.endIteration()
		b.startIteration(ev)
	}
	switch ev.Type {
	case journal.EngineStart:
		b.finish()
		b.startAgent(ev)
	case journal.Thought:
		b.chat(ev)
	case journal.ActionRequest:
		b.startTool(ev)
	case journal.ActionResult:
		b.endTool(ev)
	case journal.Error:
		b.error(ev)
	case journal.EngineEnd:
		b.endAgent(ev)
	case journal.HumanInputRequest:
		b.current().span.AddEvent("delta.human_input.request", trace.WithTimestamp(ev.Timestamp), trace.WithAttributes(
			attribute.String("delta.input_type", ev.InputType), attribute.String("delta.rule", ev.Rule)))
	case journal.HumanInputReceived:
		b.current().span.AddEvent("delta.human_input.received", trace.WithTimestamp(ev.Timestamp), trace.WithAttributes(
			attribute.String("delta.decision", ev.Decision), attribute.String("delta.by", ev.By)))
	case journal.TurnLimit, journal.SystemMessage:
		b.current().span.AddEvent("delta."+strings.ToLower(string(ev.Type)), trace.WithTimestamp(ev.Timestamp), trace.WithAttributes(
			attribute.String("delta.kind", ev.Kind)))
	}
	if b.iter != nil && ev.Iteration == b.iterN {
		b.iter.last = ev.Timestamp
	}
	b.last = ev.Timestamp
}

// current is the innermost open span events are added to.
func (b *builder) current() *openSpan {
	if b.iter != nil {
		return b.iter
	}
	return b.agent
}

// start starts a span of kind under parent (nil: the root of the run's
// trace) at the event seq.
func (b *builder) start(parent *openSpan, kind string, seq int64, name string, at time.Time, sk trace.SpanKind, attrs ...attribute.KeyValue) *openSpan {
	ctx := b.ctx
	if parent != nil {
		ctx = parent.ctx
	}
	ctx = withIDs(ctx, b.trace, spanIDOf(b.runID, kind, seq))
	attrs = append(attrs, attribute.String("gen_ai.conversation.id", b.runID))
	ctx, span := b.tracer.Start(ctx, name, trace.WithTimestamp(at), trace.WithSpanKind(sk), trace.WithAttributes(attrs...))
	return &openSpan{ctx: ctx, span: span, start: at, last: at}
}

// end ends s at the time given.
func (b *builder) end(s *openSpan, at time.Time) {
	if at.Before(s.start) {
		at = s.start
	}
	s.span.End(trace.WithTimestamp(at))
	b.ended++
}

// startAgent opens the invoke_agent span of the invocation ev starts.
func (b *builder) startAgent(ev *journal.Event) {
	b.cfg = startConfig{}
	if len(ev.Config) > 0 {
		_ = json.Unmarshal(ev.Config, &b.cfg) // a config that does not parse leaves the names out
	}
	b.usage = llm.Usage{}
	name := "invoke_agent"
	if b.cfg.AgentName != "" {
		name += " " + b.cfg.AgentName
	}
	attrs := append(b.providerAttrs(), attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("delta.run.id", b.runID))
	if b.cfg.AgentName != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", b.cfg.AgentName))
	}
	if ev.ParentRunID != "" {
		attrs = append(attrs, attribute.String("delta.parent_run.id", ev.ParentRunID))
	}
	if ev.WorkDir != "" {
		attrs = append(attrs, attribute.String("delta.work_dir", ev.WorkDir))
	}
	b.agent = b.start(nil, "invoke_agent", ev.Seq, name, ev.Timestamp, trace.SpanKindInternal, attrs...)
}

// providerAttrs name the provider and the requested model. gen_ai.system
// is the name conventions before 1.37 used, which many backends still read.
func (b *builder) providerAttrs() []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if p := providerName(b.cfg.Provider); p != "" {
		attrs = append(attrs, attribute.String("gen_ai.provider.name", p), attribute.String("gen_ai.system", p))
	}
	if b.cfg.Model != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", b.cfg.Model))
	}
	return attrs
}

// providerName is the conventions' name of a Delta provider (Delta's own
// name for those the conventions do not list).
func providerName(p string) string {
	switch p {
	case "gemini":
		return "gcp.gemini"
	case "openai-compatible":
		return "openai"
	}
	return p
}

// endAgent closes the invocation at ENGINE_END, with its status and usage.
func (b *builder) endAgent(ev *journal.Event) {
	b.endTools(ev.Timestamp)
	b.endIteration()
	s := b.agent
	s.span.SetAttributes(append(usageAttrs(b.usage), attribute.String("delta.run.status", ev.Status), attribute.Int("delta.final_iteration", ev.FinalIteration))...)
	if ev.Status == "FAILED" {
		s.span.SetStatus(codes.Error, "the run failed")
		s.span.SetAttributes(attribute.String("error.type", "run_failed"))
	}
	b.end(s, ev.Timestamp)
	b.agent = nil
}

// finish ends what is still open at the last event: an invocation whose
// ENGINE_END was never written (the process was killed).
func (b *builder) finish() {
	if b.agent == nil {
		return
	}
	b.endTools(b.last)
	b.endIteration()
	b.agent.span.SetAttributes(usageAttrs(b.usage)...)
	b.agent.span.SetStatus(codes.Error, "the engine stopped without ending the run")
	b.agent.span.SetAttributes(attribute.String("error.type", "no_engine_end"))
	b.end(b.agent, b.last)
	b.agent = nil
}

// startIteration opens iteration ev.Iteration, begun when the previous
// event was written (the context is built and the model asked before the
// iteration's first event).
func (b *builder) startIteration(ev *journal.Event) {
	at := b.last
	if at.IsZero() || at.Before(b.agent.start) {
		at = b.agent.start
	}
	b.iterN = ev.Iteration
	b.iter = b.start(b.agent, "iteration", ev.Seq, "iteration "+itoa(ev.Iteration), at, trace.SpanKindInternal,
		attribute.Int("delta.iteration", ev.Iteration))
}

// endIteration ends the open iteration at its last event.
func (b *builder) endIteration() {
	if b.iter == nil {
		return
	}
	b.end(b.iter, b.iter.last)
	b.iter, b.iterN = nil, 0
}
