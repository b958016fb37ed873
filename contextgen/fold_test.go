package contextgen

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

func TestFold(t *testing.T) {
	one := 1
	events := journalOf(
		user("fix the bug"),
		thought("Let me look.\nI will read main.go first.", llm.ToolCall{ID: "a", Name: "read_file", Arguments: `{"path":"main.go"}`}),
		result("a", "read_file", "package main"),
		thought("I decided to patch it.", llm.ToolCall{ID: "b", Name: "edit_file", Arguments: `{"path":"main.go","old":"x"}`},
			llm.ToolCall{ID: "c", Name: "run", Arguments: `{"cmd":"go test"}`}),
		result("b", "edit_file", "ok"),
		journal.Event{Type: journal.ActionResult, CallID: "c", ToolName: "run", ObservationContent: "FAIL: TestX\nmore", ExitCode: &one},
		thought("Recent: I will not be summarized.", llm.ToolCall{ID: "d", Name: "read_file", Arguments: `{"files":["other.go"]}`}),
		result("d", "read_file", "..."),
	)
	want := `## Memory Summary (iterations 1-2 of 3)

### Tools used
- edit_file × 1
- read_file × 1
- run × 1

### Decisions
- (iteration 1) I will read main.go first.
- (iteration 2) I decided to patch it.

### Files touched
- main.go (read_file, edit_file)

### Errors
- (iteration 2) ` + "`run`" + ` (exit code 1): FAIL: TestX …
`
	if diff := cmp.Diff(want, Fold(events, 1)); diff != "" {
		t.Errorf("Fold(keep 1) mismatch (-want +got):\n%s", diff)
	}
	if got, want := Fold(events, 5), "## Memory Summary\n\nNo earlier iterations: all 3 are in the recent conversation.\n"; got != want {
		t.Errorf("Fold(keep 5) = %q, want %q", got, want)
	}
}
