package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/execute/guard"
)

const help = `Usage: delta-exec-guard (internal)

delta-exec-guard is an internal helper of Delta; do not run it by hand.
Every delta binary starts it around each tool, hook and context generator
command it runs, so that the command and every process it started end when
the command ends, times out, or when the delta process itself is killed.
Only processes that detached with setsid(1) are left running.

It must be installed next to the other delta binaries (make install does);
without it they work the same, only slower to start each command.
`

// man is the manual page printed by --man (make man writes it to
// man/delta-exec-guard.1).
const man = `.TH DELTA-EXEC-GUARD 1 "" "delta-exec-guard" "internal process guard of Delta"
.SH NAME
delta-exec-guard - internal process guard of Delta
.SH SYNOPSIS
\fBdelta-exec-guard\fP (internal; not run by hand)
.SH DESCRIPTION
delta-exec-guard is started by every delta binary around each tool, hook and context generator command\&. It makes itself a child subreaper, runs the command in a new process group, and kills the group and every process the command left behind when the command exits, when its caller asks (timeout, cancellation), and when its caller dies, even by SIGKILL\&. Processes that detached with setsid(1) are left running\&.
.PP
It depends on nothing but the Go standard library, so it starts as fast as any small program; when it is missing, the delta binaries re-execute themselves as the guard instead, which is slower but equivalent\&. Install it next to the other delta binaries (make install does)\&.
.SH OPTIONS
.TP
\fB-h, --help\fP
Say what this program is\&.
.SH EXIT STATUS
As a guard, the command's exit status (128+N when signal N killed it) and 126 when it could not be started\&. Run by hand: 0 for --help and --man, 2 otherwise; 126 when started by a delta binary of another version\&.
.SH SEE ALSO
delta(1)
`

// run is the whole program: the guard when started by lib/execute, a note
// saying it is internal otherwise.
func run(args []string, stdout, stderr io.Writer) int {
	if guard.Invoked(args) {
		return guard.Main(args)
	}
	if len(args) < 2 {
		fmt.Fprint(stderr, help)
		return 2
	}
	switch a := args[1]; {
	case a == "-h" || a == "--help":
		fmt.Fprint(stdout, help)
		return 0
	case a == "--man":
		fmt.Fprint(stdout, man)
		return 0
	case strings.HasPrefix(a, guard.ArgPrefix):
		fmt.Fprintf(stderr, "%s: error: guard protocol %q not understood (this guard speaks %q)\n", guard.Name, a, guard.Arg)
		fmt.Fprintf(stderr, "%s: hint: install all delta binaries from the same build (make install)\n", guard.Name)
		return 126
	}
	fmt.Fprint(stderr, help)
	return 2
}
