// Command delta-cluster runs Delta past one machine on NATS JetStream: it
// serves an embedded NATS server with Delta's profile, creates the
// streams and buckets, runs workers that pull batch tasks, submits and
// collects batches, mirrors a --cluster run's journal for delta-run, and
// does send, stop, log, list-runs and pull for runs on other hosts. It is
// the one command that links NATS; delta reaches it as `delta cluster`,
// `delta worker`, `delta batch` and `delta pull`.
package main

import (
	"os"

	"github.com/deltakit/delta/lib/cli"
)

func main() { os.Exit(cli.Run("delta-cluster", &CLI{}, os.Args[1:], cli.OSStdio())) }
