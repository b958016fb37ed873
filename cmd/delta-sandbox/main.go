// Command delta-sandbox runs a command under the sandbox Delta gives a
// model's tools (`delta sandbox exec` runs it): a user can try what a tool
// would be allowed, and tests use it as the primitive the rest is built on.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-sandbox", &CLI{}, os.Args[1:], cli.OSStdio())) }
