package runs

import (
	"path/filepath"
	"strconv"
)

// OutputDir holds, under a run directory, the output of tool calls as it
// comes: a command's stdout and stderr are written there from their first
// byte, so that a person (tail -f), delta log -f or the live stream can
// follow a call that is still running. ACTION_REQUEST names the files.
// Once the call ends, a stream short enough to be kept inline in the
// call's record is removed; a longer one stays, and the record names it.
const OutputDir = "io/output"

// CallOutput is where the output of the call callID of iteration it is
// written while it runs, relative to the run directory: its stdout and its
// stderr. The engine names them in ACTION_REQUEST; command tools and the
// commands plugins run (plugins/sdk) write them. The iteration keeps apart
// calls of different turns that a model gave the same id.
func CallOutput(it int, callID string) (stdout, stderr string) {
	base := OutputDir + "/" + strconv.Itoa(it) + "_" + safeName(callID)
	return base + ".stdout", base + ".stderr"
}

// CallOutputIn is CallOutput as absolute paths in the run directory runDir.
func CallOutputIn(runDir string, it int, callID string) (stdout, stderr string) {
	out, errOut := CallOutput(it, callID)
	return filepath.Join(runDir, filepath.FromSlash(out)), filepath.Join(runDir, filepath.FromSlash(errOut))
}
