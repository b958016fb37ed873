package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
)

// showApproval prints the agent's approval policy for --check: each rule
// with the tools it can apply to, and a warning for a rule that matches
// none of them (a typo in its glob, most likely).
func showApproval(w io.Writer, a *agent.Agent, plugin []pluginTool) {
	if len(a.Approval) == 0 {
		return
	}
	var names []string
	for _, t := range a.Tools {
		names = append(names, t.Name)
	}
	for _, p := range plugin {
		names = append(names, p.Name)
	}
	fmt.Fprintf(w, "delta-tool-expand: approval policy (the first matching rule decides; no match runs the call):\n")
	for _, r := range a.Approval {
		var tools []string
		for _, n := range names {
			if approval.MatchesTool(r, n) {
				tools = append(tools, n)
			}
		}
		what := "tool " + orAll(r.Tool)
		if r.Command != nil {
			what += fmt.Sprintf(", command matching /%s/", r.Command)
		}
		if r.JQ != "" {
			what += fmt.Sprintf(", arguments where jq %q holds", r.JQ)
		}
		line := fmt.Sprintf("  line %d: %s → %s", r.Line, what, r.Decision)
		if r.Reason != "" {
			line += " (" + r.Reason + ")"
		}
		if len(tools) == 0 {
			fmt.Fprintf(w, "%s\n[WARNING] approval rule at line %d matches none of the agent's tools\n", line, r.Line)
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", line, strings.Join(tools, ", "))
	}
}

func orAll(glob string) string {
	if glob == "" {
		return "*"
	}
	return glob
}
