package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/cli"
)

// TestChosenCommandSameOutput holds delta-run's own grammar to what
// cli.OnlyChosenCommand promises: every help page, the version and every
// command-line mistake print exactly what the whole model prints (none of
// these runs a command).
func TestChosenCommandSameOutput(t *testing.T) {
	for _, line := range []string{
		"--help", "-h", "run --help", "continue --help", "list-runs --help", "stop --help", "log --help",
		"prune --help", "fork --help", "send --help", "init --help", "config --help", "config show --help",
		"-m x --help", "--version", "run --version", "-m x --version", "continue --version",
		"--bogus", "run --bogus", "continue --bogus", "-m x continue", "-w ws list-runs", "config",
		"run --format bogus", "list-runs --format yaml", "log --format raw", "prune", "prune --format json",
		"continue --approve --deny --bogus", "-q",
	} {
		args := strings.Fields(line)
		var wOut, wErr, cOut, cErr bytes.Buffer
		whole := cli.Run("delta-run", &CLI{}, optionalValues(args), cli.Stdio{In: strings.NewReader(""), Out: &wOut, Err: &wErr})
		chosen := runCLI(args, cli.Stdio{In: strings.NewReader(""), Out: &cOut, Err: &cErr})
		if whole != chosen || wOut.String() != cOut.String() || wErr.String() != cErr.String() {
			t.Errorf("delta-run %s:\nwhole model:    exit %d, stdout %q, stderr %q\nchosen command: exit %d, stdout %q, stderr %q",
				line, whole, wOut.String(), wErr.String(), chosen, cOut.String(), cErr.String())
		}
	}
}
