package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printStatus writes the report as four tables: nodes, streams, workers,
// leases. servers is how many servers the connection was told of.
func printStatus(w io.Writer, rep statusReport, servers int) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	cl := rep.Cluster
	if cl == "" {
		cl = "(single node)"
	}
	fmt.Fprintf(tw, "connected to %s, cluster %s, %d server(s) announced: %s\n\n", rep.Connected, cl, servers, strings.Join(rep.Servers, " "))
	fmt.Fprintln(tw, "NODE\tLEADS\tLAGGING\tSTATE")
	for _, n := range rep.Nodes {
		state := "up"
		if n.Offline {
			state = "offline"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", n.Name, n.Leads, n.Lagging, state)
	}
	fmt.Fprintln(tw, "\nSTREAM\tKIND\tMESSAGES\tLEADER\tREPLICAS")
	for _, s := range rep.Streams {
		if s.Missing {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tmissing: run `delta cluster init`\n", s.Name, s.Kind)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.Name, s.Kind, s.Messages, orDash(s.Leader), replicaText(s))
	}
	fmt.Fprintln(tw, "\nWORKER\tHOST\tQUEUE\tSLOTS\tBUSY\tPID")
	for _, wk := range rep.Workers {
		if wk.Raw != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\n", wk.Key, wk.Raw)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", orDash(wk.Name), wk.Host, wk.Queue, wk.Slots, wk.Busy, wk.PID)
	}
	fmt.Fprintln(tw, "\nLEASE\tHOST\tPID\tWORKER\tSINCE\tRENEWED")
	for _, l := range rep.Leases {
		if l.Raw != "" {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t%s ago\n", l.Key, l.Raw, l.Age)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s ago\n", l.Key, l.Host, l.PID, orDash(l.Worker), l.Since, l.Age)
	}
	return tw.Flush()
}

// replicaText is "1/1" on one node, else current/total and the names of
// the followers that are not current.
func replicaText(s streamStatus) string {
	total, current := 1+len(s.Replicas), 1
	var behind []string
	for _, r := range s.Replicas {
		switch {
		case r.Offline:
			behind = append(behind, r.Name+" offline")
		case !r.Current:
			behind = append(behind, fmt.Sprintf("%s lagging %d", r.Name, r.Lag))
		default:
			current++
		}
	}
	if s.Leader == "" && len(s.Replicas) > 0 {
		current-- // no leader: nobody counts as current
	}
	out := fmt.Sprintf("%d/%d current", current, total)
	if len(behind) > 0 {
		out += " (" + strings.Join(behind, ", ") + ")"
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
