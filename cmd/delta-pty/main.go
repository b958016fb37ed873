// Command delta-pty runs interactive programs in pseudo-terminals for
// agents and people: start, write, keys, read, attach, end, list.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/sessions/jsonout"
)

func main() {
	os.Exit(cli.Run("delta-pty", &CLI{}, os.Args[1:], cli.OSStdio(), cli.ParseErrorHook(jsonout.ParseErrors("delta-pty"))))
}
