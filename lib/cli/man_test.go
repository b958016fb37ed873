package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

type manTestCLI struct {
	ManFlag
	Shown  bool `help:"A flag for people."`
	Hidden bool `hidden:"" help:"A flag for programs."`
}

// TestManPageLeavesOutHiddenFlags: a hidden flag is neither in --help nor
// in the manual, and the model is left as it was.
func TestManPageLeavesOutHiddenFlags(t *testing.T) {
	app, err := kong.New(&manTestCLI{}, kong.Name("demo"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(app.Model.Node.Flags)
	page := ManPage(app.Model, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	if !strings.Contains(page, "--shown") {
		t.Errorf("ManPage lacks the visible flag --shown:\n%s", page)
	}
	if strings.Contains(page, "--hidden") {
		t.Errorf("ManPage documents the hidden flag --hidden:\n%s", page)
	}
	if got := len(app.Model.Node.Flags); got != before {
		t.Errorf("after ManPage the model has %d flags, want %d", got, before)
	}
}
