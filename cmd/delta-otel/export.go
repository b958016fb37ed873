package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// exportCmd is `delta-otel export`.
type exportCmd struct {
	Runs    []string `arg:"" optional:"" name:"run" placeholder:"RUN" help:"Run ids (looked up as delta log does: in -w, else in the current directory and an agent directory's workspaces) or run directories (WORKSPACE/.delta/ID)."`
	Last    bool     `help:"Export the latest run of the workspace (the first list-runs shows)."`
	WorkDir string   `short:"w" name:"work-dir" help:"Workspace holding the runs." type:"path" placeholder:"DIR"`
	Follow  bool     `short:"f" help:"Follow one running run and send each span as soon as it is complete, until the run stops (delta log -f --otlp runs this)."`
}

// followPoll is how often --follow looks for new events.
const followPoll = 50 * time.Millisecond

// tracerName is the instrumentation scope of the spans.
const tracerName = "github.com/deltakit/delta/cmd/delta-otel"

// Run exports the runs named, one trace each, and prints each run's id
// and trace id.
func (c *exportCmd) Run(std cli.Stdio) error {
	targets, err := c.targets()
	if err != nil {
		return err
	}
	if c.Follow && len(targets) != 1 {
		return cli.Errorf(cli.ExitUsage, "follow one run at a time", "--follow takes one run, not %d", len(targets))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tp, errs, err := newProvider(ctx)
	if err != nil {
		return err
	}
	tracer := tp.Tracer(tracerName)
	var sent []string
	for _, t := range targets {
		b := newBuilder(context.Background(), tracer, t.id, t.dir)
		if c.Follow {
			err = follow(ctx, b, tp, t.dir)
		} else {
			err = exportAll(b, t, std.Err)
		}
		if err != nil {
			break
		}
		sent = append(sent, t.id+" "+b.trace.String())
	}
	if ferr := flush(tp, errs); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	for _, line := range sent {
		fmt.Fprintln(std.Out, line)
	}
	return nil
}

// exportAll feeds the whole journal of t to b. The spans of a run still
// running that are not complete yet are left out (--follow sends them as
// they complete); a run that stopped without ENGINE_END has its open
// spans ended at its last event.
func exportAll(b *builder, t target, stderr io.Writer) error {
	live := runs.StillRunning(t.dir)
	err := journal.Scan(filepath.Join(t.dir, runs.JournalFile), func(ev *journal.Event) error {
		b.event(ev)
		return nil
	})
	if err != nil {
		return cli.WithCode(runs.ExitFailed, "", fmt.Errorf("read run %s: %w", t.id, err))
	}
	if live {
		fmt.Fprintf(stderr, "delta-otel: run %s is still running: the spans not complete yet are left out (delta otel export --follow sends them as they complete)\n", t.id)
		return nil
	}
	b.finish()
	return nil
}

// follow feeds b the run's events as they are written and flushes the
// spans they complete, until the run stops or ctx is cancelled.
func follow(ctx context.Context, b *builder, tp *sdktrace.TracerProvider, runDir string) error {
	tail := journal.NewTail(filepath.Join(runDir, runs.JournalFile))
	flushed := 0
	for {
		// The status is read before the events: once it says the run
		// stopped, every event it wrote is in the file.
		live := runs.StillRunning(runDir)
		evs, err := tail.Next()
		if err != nil {
			return cli.WithCode(runs.ExitFailed, "", err)
		}
		for i := range evs {
			b.event(&evs[i])
		}
		if !live {
			b.finish()
			return nil
		}
		if b.ended > flushed {
			if err := tp.ForceFlush(ctx); err != nil && ctx.Err() == nil {
				return exportError(err)
			}
			flushed = b.ended
		}
		select {
		case <-ctx.Done():
			return cli.Errorf(runs.ExitInterrupted, "", "interrupted: the spans complete so far were sent")
		case <-time.After(followPoll):
		}
	}
}

// exportErrors keeps the first error the SDK reports from its background
// exports, which no call returns.
type exportErrors struct {
	mu    sync.Mutex
	first error
}

func (e *exportErrors) Handle(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		e.first = err
	}
}

// newProvider is a tracer provider exporting with the protocol the
// environment names, batching and blocking rather than dropping spans
// when a large run fills the queue.
func newProvider(ctx context.Context) (*sdktrace.TracerProvider, *exportErrors, error) {
	exp, err := newExporter(ctx)
	if err != nil {
		return nil, nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "delta")),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		return nil, nil, cli.WithCode(runs.ExitConfig, "check OTEL_RESOURCE_ATTRIBUTES (key=value,…)", fmt.Errorf("read the resource: %w", err))
	}
	errs := &exportErrors{}
	otel.SetErrorHandler(errs)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBlocking()),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(journalIDs{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return tp, errs, nil
}

// newExporter is the OTLP exporter of OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
// (or OTEL_EXPORTER_OTLP_PROTOCOL); the exporters read the endpoint,
// headers, timeout and TLS settings from the environment themselves.
func newExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var exp sdktrace.SpanExporter
	var err error
	switch proto {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, cli.Errorf(runs.ExitConfig, "set OTEL_EXPORTER_OTLP_PROTOCOL to http/protobuf or grpc", "OTLP protocol %q is not supported", proto)
	}
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "check the OTEL_EXPORTER_OTLP_* variables", fmt.Errorf("set up the OTLP exporter: %w", err))
	}
	return exp, nil
}

// flush sends what is left and shuts the provider down, with its own
// time limit (an interrupt must not keep the last spans from going out).
func flush(tp *sdktrace.TracerProvider, errs *exportErrors) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := tp.ForceFlush(ctx)
	if serr := tp.Shutdown(ctx); err == nil {
		err = serr
	}
	if err == nil {
		errs.mu.Lock()
		err = errs.first
		errs.mu.Unlock()
	}
	if err != nil {
		return exportError(err)
	}
	return nil
}

// exportError says what to check when spans could not be sent.
func exportError(err error) error {
	where := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if where == "" {
		where = os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	if where == "" {
		where = "the default endpoint (localhost:4318)"
	}
	var ce *cli.Error
	if errors.As(err, &ce) {
		return err
	}
	return cli.WithCode(runs.ExitFailed, "is a collector listening at "+where+"? set OTEL_EXPORTER_OTLP_ENDPOINT", fmt.Errorf("send spans: %w", err))
}
