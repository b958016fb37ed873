// Command delta-otel sends a run's journal to an OpenTelemetry collector as
// OTLP traces that follow the GenAI semantic conventions (`delta otel
// export RUN`): a span for each invocation of the agent, each iteration,
// each model call and each tool call. The OpenTelemetry SDK is linked
// into this command only, so the engine and the other commands stay small.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-otel", &CLI{}, os.Args[1:], cli.OSStdio())) }
