package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Row is one test case of the cross-provider parity matrix, decided by
// the checks it names (all must pass; NotRun when it has none).
type Row struct {
	Case   string
	Checks []string
}

// Rows is the parity matrix, in its order.
var Rows = []Row{
	{"Simple file creation task", []string{"create"}},
	{"Read file, then edit it", []string{"edit"}},
	{"Multi-file edit in one session", []string{"multi_edit"}},
	{"Shell command execution", []string{"shell"}},
	{"Shell command timeout handling", []string{"timeout"}},
	{"Grep + glob to find files", []string{"search"}},
	{"Multi-step task (read -> analyze -> edit)", []string{"read_analyze_edit"}},
	{"Tool output truncation (large file)", []string{"truncation"}},
	{"Parallel tool calls (if supported)", []string{"parallel"}},
	{"Steering mid-task", []string{"steering"}},
	{"Reasoning effort change", []string{"reasoning_effort"}},
	{"Subagent spawn and wait", []string{"subagent"}},
	{"Loop detection triggers warning", nil},
	{"Error recovery (tool fails, model retries)", []string{"error_recovery"}},
	{"Provider-specific editing format works", []string{"edit_format"}},
}

// Cell is one row's status for one provider.
func Cell(r Row, res *ProviderResult) string {
	if res.Skip != "" {
		return Skipped
	}
	if len(r.Checks) == 0 {
		return NotRun
	}
	if c, ok := res.status("setup"); ok && c.Status == Fail {
		return Fail
	}
	status := Pass
	for _, name := range r.Checks {
		c, ok := res.status(name)
		switch {
		case !ok:
			return NotRun
		case c.Status == Fail:
			return Fail
		case c.Status != Pass:
			status = c.Status
		}
	}
	return status
}

// Matrix is the JSON form of a smoke test's results.
type Matrix struct {
	Providers []*ProviderResult `json:"providers"`
	Rows      []MatrixRow       `json:"matrix"`
}

// MatrixRow is one test case with its status per provider.
type MatrixRow struct {
	Case    string            `json:"case"`
	Results map[string]string `json:"results"`
}

// NewMatrix builds the matrix of results (one per provider, in
// ProviderNames order).
func NewMatrix(results []*ProviderResult) Matrix {
	m := Matrix{Providers: results}
	for _, r := range Rows {
		row := MatrixRow{Case: r.Case, Results: map[string]string{}}
		for _, res := range results {
			row.Results[res.Name] = Cell(r, res)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// WriteTable prints the matrix as a table, then why providers were skipped
// and what failed.
func (m Matrix) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "Test case")
	for _, p := range m.Providers {
		fmt.Fprintf(tw, "\t%s", p.Name)
	}
	fmt.Fprintln(tw)
	for _, r := range m.Rows {
		fmt.Fprint(tw, r.Case)
		for _, p := range m.Providers {
			fmt.Fprintf(tw, "\t%s", r.Results[p.Name])
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	for _, p := range m.Providers {
		switch {
		case p.Skip != "":
			notes = append(notes, fmt.Sprintf("%s: skipped: %s", p.Name, p.Skip))
		default:
			notes = append(notes, fmt.Sprintf("%s: %s", p.Name, p.Model))
		}
		for _, c := range p.Checks {
			if c.Status == Fail {
				notes = append(notes, fmt.Sprintf("%s: %s: %s", p.Name, c.Name, c.Detail))
			}
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return err
}
