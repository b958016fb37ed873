// Command delta is the git-style front of the Delta toolkit: `delta NAME
// ARGS…` replaces itself with the delta-NAME binary (delta run → delta-run
// run, delta tool expand → delta-tool-expand), so every invocation of
// seeds/000 works as written.
package main

import (
	"os"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(run(os.Args[1:], cli.OSStdio(), syscall.Exec)) }
