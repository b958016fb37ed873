package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/cli"
)

// FoldCmd writes the memory-folding summary of a run's journal.
type FoldCmd struct {
	KeepLast int    `name:"keep-last" default:"10" placeholder:"N" help:"Leave out the last N iterations (the ones a journal source with max_iterations: N shows in full)."`
	Journal  string `placeholder:"PATH" help:"The journal to summarize (default: $JOURNAL_PATH, which the engine sets for generators)."`
	Output   string `short:"o" placeholder:"PATH" help:"Write the summary here, creating its directory (default: standard output)."`
}

// Run writes the summary.
func (c *FoldCmd) Run(std cli.Stdio) error {
	path := c.Journal
	if path == "" {
		path = os.Getenv("JOURNAL_PATH")
	}
	if path == "" {
		return cli.Errorf(cli.ExitUsage, "pass --journal PATH, or run fold as a context generator (the engine sets JOURNAL_PATH)", "no journal to fold")
	}
	if c.KeepLast < 0 {
		return cli.Errorf(cli.ExitUsage, "", "--keep-last must be 0 or more, not %d", c.KeepLast)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	events, err := contextgen.ReadJournal(path)
	if err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	summary := contextgen.Fold(events, c.KeepLast)
	if c.Output == "" {
		_, err := fmt.Fprint(std.Out, summary)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.Output), 0o755); err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	if err := atomicfile.Write(c.Output, []byte(summary), 0o644); err != nil {
		return fmt.Errorf("fold: %w", err)
	}
	return nil
}
