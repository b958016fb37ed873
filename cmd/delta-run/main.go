// Command delta-run is Delta's engine: it starts runs (run), resumes them
// (continue), lists them (list-runs) and creates agents from templates
// (init). The delta front runs it for `delta run|continue|list-runs|init`.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(runCLI(os.Args[1:], cli.OSStdio())) }

// runCLI is delta-run's whole command line, for main and for in-process
// tests. delta-run is started for every run, so kong builds the model of
// the chosen command only (cli.OnlyChosenCommand).
func runCLI(args []string, std cli.Stdio) int {
	return cli.Run("delta-run", &CLI{}, optionalValues(args), std, cli.OnlyChosenCommand)
}
