// Command delta-tool-expand loads an agent and shows its tools the way the
// engine sees them: expanded to argv templates, as JSON schemas, or as the
// exact argv and stdin one call would run (seeds/000 §2.2.7).
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-tool-expand", &CLI{}, os.Args[1:], cli.OSStdio())) }
