package main

import (
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestBatchScripts runs the testdata/batch/*.txtar scenarios against the real
// binaries and one in-process cluster node, which DELTA_CLUSTER names
// (each script uses batch ids and queues of its own).
func TestBatchScripts(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	clitest.Run(t, "testdata/batch", clitest.WithSetup(func(env *testscript.Env) error {
		env.Setenv(cluster.EnvURL, one.URL)
		env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		env.Setenv("GIT_AUTHOR_NAME", "t")
		env.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
		env.Setenv("GIT_COMMITTER_NAME", "t")
		env.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
		return nil
	}))
}
