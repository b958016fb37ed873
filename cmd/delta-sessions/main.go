// Command delta-sessions keeps persistent shell and interpreter sessions
// for agents: start, exec, end, list (seeds/000 §2.3).
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/sessions/jsonout"
)

func main() {
	if code, ok := fastExec(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(cli.Run("delta-sessions", &CLI{}, os.Args[1:], os.Stdout, os.Stderr, jsonout.ParseErrors("delta-sessions")))
}
