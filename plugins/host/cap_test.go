package host

import (
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/observe"
)

// TestCapOutputLetsPluginCutThrough: a plugin's own cut (the limit plus
// its marker) reaches the model unchanged; an unbounded output is capped.
func TestCapOutputLetsPluginCutThrough(t *testing.T) {
	own := strings.Repeat("x", observe.PluginMaxChars/2) + "\n\n[WARNING: Tool output was truncated. Shown here: 2 of 2 lines, 50000 characters. The whole output (100002 bytes, 2 lines) is in .delta/r/io/tool_executions/x/output.txt: read the part you need.]\n\n" + strings.Repeat("y", observe.PluginMaxChars/2)
	if got := capOutput(own); got != own {
		t.Errorf("capOutput cut a plugin's own cut output (%d chars): %.200q", len(own), got[observe.PluginMaxChars/2-10:])
	}
	big := strings.Repeat("z", 3*observe.PluginMaxChars)
	if got := capOutput(big); len(got) > observe.PluginMaxChars+400 || !strings.Contains(got, "characters were removed from the middle") {
		t.Errorf("capOutput(%d chars) = %d chars, want it capped with a warning", len(big), len(got))
	}
}
