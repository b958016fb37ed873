// Command delta-context prints the context a Delta run's model receives
// next, built from the agent's context.yaml exactly as delta-run builds it,
// and provides the fold memory-folding generator.
package main

import (
	"os"
	"runtime/debug"

	"github.com/deltakit/delta/lib/cli"
)

func main() {
	// Nearly everything this short-lived command allocates (the journal's
	// events, the messages) stays live until it prints: collecting at
	// every doubling of the heap only rescans it. GOGC still decides when
	// set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(cli.Run("delta-context", &CLI{}, os.Args[1:], cli.OSStdio()))
}
