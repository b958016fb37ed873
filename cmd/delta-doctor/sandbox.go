package main

import (
	"fmt"

	"github.com/deltakit/delta/lib/sandbox"
)

// checkSandbox says which of the sandbox's mechanisms the kernel offers:
// Landlock's ABI, whether it filters file writes and TCP connects, and
// whether unprivileged network namespaces can be made. A kernel without
// them is a warning: runs in danger-full-access (the default of an agent
// that sets no sandbox) still work, sandboxed ones refuse to start.
func checkSandbox(r *report) {
	s := sandbox.Probe()
	netns := "network namespaces: no"
	if s.Netns {
		netns = "network namespaces: yes"
	}
	switch {
	case s.NetBy == "Landlock":
		r.ok("sandbox", fmt.Sprintf("Landlock ABI %d: file writes and TCP connects confined (by Landlock); %s", s.ABI, netns))
	case s.NetBy != "":
		why := fmt.Sprintf("TCP connects not (needs ABI %d, Linux 6.7)", 4)
		if s.Net {
			why = "TCP rules turned off by " + sandbox.LandlockNetEnv + "=off"
		}
		r.warn("sandbox", fmt.Sprintf("Landlock ABI %d: file writes confined, %s; the network is cut by a %s instead", s.ABI, why, s.NetBy),
			"a sandbox that allows some host:port (sandbox network: [...]) refuses to start here; allow all (network: true) or none")
	case s.FS:
		r.warn("sandbox", fmt.Sprintf("Landlock ABI %d: file writes confined, TCP connects not (needs ABI 4, Linux 6.7); %s", s.ABI, netns),
			"sandboxed runs need sandbox network: true in agent.yaml, or --sandbox danger-full-access")
	default:
		r.warn("sandbox", fmt.Sprintf("no Landlock: %v; %s", s.Err, netns),
			"sandboxed runs (read-only, workspace-write) refuse to start; enable Landlock or use --sandbox danger-full-access")
	}
}
