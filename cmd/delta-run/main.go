// Command delta-run is Delta's engine: it starts runs (run), resumes them
// (continue), lists them (list-runs) and creates agents from templates
// (init). The delta front runs it for `delta run|continue|list-runs|init`.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-run", &CLI{}, optionalValues(os.Args[1:]), cli.OSStdio())) }
