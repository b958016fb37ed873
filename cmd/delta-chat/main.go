// Command delta-chat is an interactive, multi-turn conversation with an
// agent over one run (`delta chat` runs it). Each line typed continues the
// run; delta-run does the work, and the chat drives it the way a user
// would from a shell: run, continue, send, stop and log.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-chat", &CLI{}, os.Args[1:], cli.OSStdio())) }
