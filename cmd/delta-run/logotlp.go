package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// exportOTLP is `delta log --otlp`: it becomes delta-otel export (with
// --follow for -f), found beside delta-run and then on PATH as the front
// finds commands. The OpenTelemetry SDK is linked into delta-otel only, so
// delta-run's start stays small; exec hands delta-otel the signals, the
// output and the exit code.
func (c *LogCmd) exportOTLP(runDir string) error {
	bin, err := cli.FindCommand("delta-otel")
	if err != nil {
		return cli.Errorf(runs.ExitConfig, "install delta-otel beside delta-run (make install, or the release archive) or put it on PATH",
			"--otlp needs delta-otel: %v", err)
	}
	argv := []string{"delta-otel", "export"}
	if c.Follow {
		argv = append(argv, "--follow")
	}
	argv = append(argv, runDir)
	err = syscall.Exec(bin, argv, os.Environ())
	return cli.WithCode(runs.ExitConfig, "", fmt.Errorf("run %s: %w", bin, err))
}
