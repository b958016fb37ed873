package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// status shows what the cluster holds: a registered worker (as `delta
// worker` writes it) and a held lease, in JSON and in its tables.
func TestStatusShowsWorkersAndLeases(t *testing.T) {
	// Build first: the worker entry below is not renewed and lives one
	// lease TTL, which a slow build of every binary could outlast.
	clitest.BinDir(t)
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 30 * time.Second})
	c := clustertest.Connect(t, one.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kv, err := c.JS.KeyValue(ctx, cluster.WorkerBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "gpu.w1", []byte(`{"name":"w1","host":"h1","queue":"gpu","slots":4,"busy":1,"pid":42}`)); err != nil {
		t.Fatal(err)
	}
	l, err := c.Acquire(ctx, cluster.LeaseKey("b1.t1"), cluster.Holder{Host: "h1", PID: 43, Worker: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)

	var st statusReport
	deltaCluster(t, &st, "status", "--cluster", one.URL, "--json")
	want := workerStatus{Key: "gpu.w1", Name: "w1", Host: "h1", Queue: "gpu", Slots: 4, Busy: 1, PID: 42}
	if len(st.Workers) != 1 || st.Workers[0] != want {
		t.Errorf("workers = %+v, want %+v", st.Workers, want)
	}
	if len(st.Leases) != 1 || st.Leases[0].Key != "run.b1.t1" || st.Leases[0].Host != "h1" || st.Leases[0].Worker != "w1" {
		t.Errorf("leases = %+v", st.Leases)
	}
	out, err := exec.Command(filepath.Join(clitest.BinDir(t), "delta-cluster"), "status", "--cluster", one.URL).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DELTA_JOURNAL    stream", "w1      h1    gpu    4      1     42", "run.b1.t1  h1    43   w1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("status table lacks %q:\n%s", want, out)
		}
	}
}
