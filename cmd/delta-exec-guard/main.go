// Command delta-exec-guard is an internal helper of Delta, not a command for
// people: lib/execute starts it around every tool, hook and context
// generator command so that the command and everything it started die with
// the Delta process that ran it (see package guard).
//
// It depends on nothing but the standard library and golang.org/x/sys, and
// so does not use the kong frame of the other delta binaries: it runs once
// per command and must start as fast as a Go program can.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }
