package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/execute/guard"
	"github.com/deltakit/delta/lib/sandbox"
)

const help = `Usage: delta-exec-guard (internal)

delta-exec-guard is an internal helper of Delta; do not run it by hand.
Every delta binary starts one with the first tool, hook or context
generator command it runs and runs them all through it, so that each
command and every process it started end when the command ends, times
out, or when the delta process itself is killed. Only processes that
detached with setsid(1) are left running. For a run with a sandbox it is
also the program that confines each tool (Landlock) before exec'ing it.

It must be installed next to the other delta binaries (make install does);
without it they work the same, only slower to start.
`

// man is the manual page printed by --man (make man writes it to
// man/delta-exec-guard.1).
const man = `.TH DELTA-EXEC-GUARD 1 "" "delta-exec-guard" "internal process guard of Delta"
.SH NAME
delta-exec-guard - internal process guard of Delta
.SH SYNOPSIS
\fBdelta-exec-guard\fP (internal; not run by hand)
.SH DESCRIPTION
delta-exec-guard is started by every delta binary with the first tool, hook or context generator command it runs, and runs that command and all the later ones\&. It makes itself a child subreaper, runs each command as the leader of a new session, and kills every process of that session the command left behind when the command exits, and all of them when its caller asks (timeout, cancellation) and when its caller dies, even by SIGKILL\&. Processes that detached with setsid(1) are left running\&. When a run has a sandbox (delta-agent(5), SANDBOX), each tool is started through it again: it confines itself with Landlock and then becomes the tool, so the tool and all it starts stay confined\&.
.PP
It depends on nothing but the Go standard library, so it starts as fast as any small program; when it is missing, the delta binaries re-execute themselves as the guard instead, which is slower but equivalent\&. Install it next to the other delta binaries (make install does)\&.
.SH OPTIONS
.TP
\fB-h, --help\fP
Say what this program is\&.
.SH EXIT STATUS
As a guard, 0 once its caller is gone, 126 when it cannot supervise processes\&. Run by hand: 0 for --help and --man, 2 otherwise; 126 when started by a delta binary of another version\&.
.SH SEE ALSO
delta(1)
`

// run is the whole program: the guard when started by lib/execute, a note
// saying it is internal otherwise.
func run(args []string, stdout, stderr io.Writer) int {
	if guard.Invoked(args) {
		return guard.Main(args)
	}
	if sandbox.Invoked(args) {
		// Started by a guard for a sandboxed command (lib/execute).
		return sandbox.ExecMain(args)
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
	case a == guard.Arg && len(args) == 2:
		// Guard mode without the marker: someone, not lib/execute.
		fmt.Fprint(stderr, help)
		return 2
	case strings.HasPrefix(a, guard.ArgPrefix):
		fmt.Fprintf(stderr, "%s: error: guard protocol %q not understood (this guard speaks %q)\n", guard.Name, a, guard.Arg)
		fmt.Fprintf(stderr, "%s: hint: install all delta binaries from the same build (make install)\n", guard.Name)
		return 126
	}
	fmt.Fprint(stderr, help)
	return 2
}
