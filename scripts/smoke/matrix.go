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
	status, _ := cell(r, res)
	return status
}

// cell is Cell with the detail of the check that decided it (empty when
// it passed, or when no check of the provider's decided it).
func cell(r Row, res *ProviderResult) (status, why string) {
	if res.Skip != "" {
		return Skipped, ""
	}
	if len(r.Checks) == 0 {
		return NotRun, ""
	}
	if c, ok := res.status("setup"); ok && c.Status == Fail {
		return Fail, c.Detail
	}
	status = Pass
	for _, name := range r.Checks {
		c, ok := res.status(name)
		switch {
		case !ok:
			return NotRun, ""
		case c.Status == Fail:
			return Fail, c.Detail
		case c.Status != Pass:
			status, why = c.Status, c.Detail
		}
	}
	return status, why
}

// Matrix is the JSON form of a smoke test's results.
type Matrix struct {
	Providers []*ProviderResult `json:"providers"`
	Rows      []MatrixRow       `json:"matrix"`
}

// MatrixRow is one test case with its status per provider and, for a
// status other than pass, why (a step skipped because the step it
// depends on failed names that step).
type MatrixRow struct {
	Case    string            `json:"case"`
	Results map[string]string `json:"results"`
	Reasons map[string]string `json:"reasons,omitempty"`
}

// NewMatrix builds the matrix of results (one per provider, in
// ProviderNames order).
func NewMatrix(results []*ProviderResult) Matrix {
	m := Matrix{Providers: results}
	for _, r := range Rows {
		row := MatrixRow{Case: r.Case, Results: map[string]string{}}
		for _, res := range results {
			status, why := cell(r, res)
			row.Results[res.Name] = status
			if why != "" {
				if row.Reasons == nil {
					row.Reasons = map[string]string{}
				}
				row.Reasons[res.Name] = why
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// WriteTable prints the matrix as a table, then why providers were skipped,
// what failed and why steps were skipped (one line per reason).
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
		var skipped []string // reasons, in order
		byReason := map[string][]string{}
		for _, c := range p.Checks {
			switch c.Status {
			case Fail:
				notes = append(notes, fmt.Sprintf("%s: %s: %s", p.Name, c.Name, c.Detail))
			case Skipped:
				if byReason[c.Detail] == nil {
					skipped = append(skipped, c.Detail)
				}
				byReason[c.Detail] = append(byReason[c.Detail], c.Name)
			}
		}
		for _, why := range skipped {
			notes = append(notes, fmt.Sprintf("%s: skipped %s: %s", p.Name, strings.Join(byReason[why], ", "), why))
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return err
}
