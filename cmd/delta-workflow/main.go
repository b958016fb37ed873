// Command delta-workflow runs multi-agent workflows: agents that talk
// through a shared channel and wake each other with @mentions, each an
// ordinary Delta run. The delta front runs it as `delta workflow …`.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-workflow", &CLI{}, os.Args[1:], cli.OSStdio())) }
