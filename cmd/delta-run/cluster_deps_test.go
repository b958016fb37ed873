package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeltaRunLinksNoNATS keeps NATS out of delta-run: a --cluster run
// talks to its mirror (delta-cluster) over a pipe, so a run without
// --cluster runs no NATS code and delta-run is no bigger for it.
func TestDeltaRunLinksNoNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/nats-io/nats.go", "github.com/nats-io/nats-server/v2", "github.com/nats-io/nkeys", "github.com/deltakit/delta/lib/cluster"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("delta-run links %s; the cluster's code belongs to delta-cluster", dep)
			}
		}
	}
}
