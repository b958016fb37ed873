// Command delta-doctor checks a Delta installation (`delta doctor` runs it):
// the binaries on PATH, the model endpoint and its key, and the plugin lock.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-doctor", &CLI{}, os.Args[1:], cli.OSStdio())) }
