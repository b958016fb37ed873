// Command delta-context prints the context a Delta run's model receives
// next, built from the agent's context.yaml exactly as delta-run builds it,
// and provides the fold memory-folding generator.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-context", &CLI{}, os.Args[1:], os.Stdout, os.Stderr)) }
