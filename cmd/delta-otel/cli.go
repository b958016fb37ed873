package main

import (
	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-otel's grammar.
type CLI struct {
	cli.ManFlag

	Export exportCmd `cmd:"" help:"Send runs to an OpenTelemetry collector as OTLP traces."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-otel sends a run's journal to an OpenTelemetry collector (Jaeger, Grafana Tempo, Honeycomb, Langfuse, Phoenix, an OpenTelemetry Collector …) as OTLP traces that follow the OpenTelemetry GenAI semantic conventions. "delta otel export RUN" runs it; "delta log -f --otlp" follows a live run with it.

Each run is one trace. Every invocation of the engine (delta run, then each delta continue) is an "invoke_agent AGENT" span; under it each iteration is an "iteration N" span, and under those each model call is a "chat MODEL" span (kind client) and each tool call an "execute_tool TOOL" span. The attributes are the conventions' names: gen_ai.operation.name (invoke_agent, chat, execute_tool), gen_ai.provider.name (and the older gen_ai.system), gen_ai.request.model, gen_ai.response.model, gen_ai.response.id, gen_ai.usage.input_tokens and gen_ai.usage.output_tokens (and the cache and reasoning counts when the provider reports them; the invoke_agent span holds the invocation's totals), gen_ai.tool.name, gen_ai.tool.call.id, gen_ai.tool.type, gen_ai.agent.name and gen_ai.conversation.id (the run id), plus delta.* attributes (delta.run.id, delta.run.status, delta.iteration, delta.tool.exit_code). A failed model call, a tool call whose result is an error and a failed run have the error status and an error.type; an ERROR event is an "exception" span event. Approvals and questions are span events (delta.human_input.request and .received) without their text. Neither prompts, answers nor tool arguments and output are sent.

The times are the journal's: a span starts and ends when the events that open and close it were written (a model call starts its io/invocations record's duration before its THOUGHT). The trace id is derived from the run id and each span id from the run id and the event the span starts at, so exporting a run again sends the same trace with the same spans, which a backend shows once.

Where to: the standard variables, as the OpenTelemetry SDK reads them. OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318; /v1/traces is appended for HTTP) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is), OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (key=value,… e.g. an API key), OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_COMPRESSION (gzip), OTEL_EXPORTER_OTLP_CERTIFICATE and OTEL_EXPORTER_OTLP_INSECURE, and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (the default) or grpc (default endpoint localhost:4317). OTEL_SERVICE_NAME (default "delta") and OTEL_RESOURCE_ATTRIBUTES name the service.

Exit codes: 0 sent; 1 a run could not be read or the collector refused or could not be reached (the SDK retries for up to a minute); 2 usage error; 126 an unknown protocol; 130 interrupted while following.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "send runs to an OpenTelemetry collector as GenAI traces"
	return nil
}
