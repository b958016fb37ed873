// Command delta-plugin installs, lists, removes and verifies Delta plugins
// (`delta plugin …` runs it): binaries in the plugin directory whose sha256
// is recorded in plugins.lock.json, so delta-run refuses one that changed.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-plugin", &CLI{}, os.Args[1:], cli.OSStdio())) }
