package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyDeltaClusterLinksNATS keeps NATS out of every other binary: a
// run without --cluster runs no NATS code, and the embedded server (tens
// of megabytes) is delta-cluster's alone. delta-run reaches the cluster
// through its mirror child, delta-cluster mirror, and a workflow's board
// through delta-workflow, which links the client (not the server) for
// --cluster: 1.6 MB and 0.4 ms of its start.
func TestOnlyDeltaClusterLinksNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}} {{join .Deps " "}}{{end}}`, "../...", "../../plugins/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	banned := []string{"github.com/deltakit/delta/lib/cluster", "github.com/nats-io/nats.go", "github.com/nats-io/nats-server/v2"}
	const self = "github.com/deltakit/delta/cmd/delta-cluster"
	const clientOnly = "github.com/deltakit/delta/cmd/delta-workflow"
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		seen++
		main, deps := fields[0], fields[1:]
		links := map[string]bool{}
		for _, dep := range deps {
			for _, b := range banned {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					links[b] = true
				}
			}
		}
		if main == clientOnly {
			if !links["github.com/nats-io/nats.go"] {
				t.Errorf("%s does not link the NATS client: is this test looking at the right packages?", main)
			}
			delete(links, "github.com/nats-io/nats.go")
			delete(links, "github.com/deltakit/delta/lib/cluster")
		}
		if main == self {
			if !links["github.com/nats-io/nats-server/v2"] {
				t.Errorf("%s does not link the NATS server: is this test looking at the right packages?", main)
			}
			continue
		}
		for b := range links {
			t.Errorf("%s links %s; only delta-cluster may (delta-workflow the client only; a run without --cluster must not carry NATS)", main, b)
		}
	}
	if seen < 10 {
		t.Fatalf("go list found %d main packages; want every binary under cmd/ and plugins/", seen)
	}
}
