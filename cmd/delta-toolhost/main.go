// Command delta-toolhost is an internal helper of Delta, not a command for
// people: delta-run starts it for a run whose agent has plugins or MCP
// servers (or a hook routed to a plugin), and it runs them there (package
// toolhost says why they are not in delta-run itself).
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
