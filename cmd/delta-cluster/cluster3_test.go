package main

import (
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// TestClusterLeaderKilledMidBatch: on three nodes, the leader of the task
// stream is killed after ten results; the batch still completes with
// every task run once and one result each (BatchOverTwoWorkers checks).
func TestClusterLeaderKilledMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-node cluster: not with -short")
	}
	three := clustertest.StartThree(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	killed := -1
	BatchOverTwoWorkers(t, three.URLs(0, 1, 2), func() {
		killed = three.StreamLeader(cluster.TaskStream)
		three.Kill(killed)
	})
	if killed < 0 {
		t.Fatal("midway was not called")
	}
}
