// Command delta-sessions keeps persistent shell and interpreter sessions
// for agents: start, exec, end, list (seeds/000 §2.3).
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/sessions/jsonout"
)

func main() {
	std := cli.OSStdio()
	if code, ok := fastExec(os.Args[1:], std); ok {
		os.Exit(code)
	}
	os.Exit(cli.Run("delta-sessions", &CLI{}, os.Args[1:], std, cli.ParseErrorHook(jsonout.ParseErrors("delta-sessions"))))
}
