package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/plugins/toolhost"
	"github.com/deltakit/delta/plugins/toolhost/server"
)

const help = `Usage: delta-toolhost (internal)

delta-toolhost is an internal helper of Delta; do not run it by hand.
delta-run starts one for a run whose agent has plugins or MCP servers, or
a hook routed to a plugin, and calls their tools and hooks through it.
It stops them all and exits when delta-run does.

It must be installed next to delta-run (make install does).
`

// man is the manual page printed by --man (make man writes it to
// man/delta-toolhost.1).
const man = `.TH DELTA-TOOLHOST 1 "" "delta-toolhost" "internal plugin and MCP host of Delta"
.SH NAME
delta-toolhost - internal plugin and MCP host of Delta
.SH SYNOPSIS
\fBdelta-toolhost\fP (internal; not run by hand)
.SH DESCRIPTION
delta-toolhost is started by delta-run for a run whose agent lists plugins or MCP servers (delta-agent(5)), or whose hooks.yaml routes a hook to a plugin, and only then: it starts the plugins and the servers, lists their tools, and runs their tool calls and hooks for delta-run, which talks to it over its standard input and output\&. The plugins' and servers' messages reach delta-run's standard error through it\&. When delta-run exits, even when it is killed, delta-toolhost stops every plugin and server and exits\&.
.PP
It keeps the plugin protocol (gRPC) and the MCP client out of delta-run, so that a run without plugins or MCP servers does not pay for loading them\&. Install it next to delta-run (make install does); a run that needs it fails at its start, saying so, when it is missing\&.
.SH OPTIONS
.TP
\fB-h, --help\fP
Say what this program is\&.
.TP
\fB--version\fP
Print the version\&.
.SH EXIT STATUS
As a tool host, 0 once delta-run is gone\&. Run by hand: 0 for --help, --man and --version, 2 otherwise; 126 when started by a delta-run of another version\&.
.SH SEE ALSO
delta-run(1), delta-plugin(1), delta-agent(5)
`

// run is the whole program: the tool host when started by delta-run, a
// note saying it is internal otherwise.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, help)
		return 2
	}
	switch a := args[1]; {
	case a == toolhost.Arg && len(args) == 2:
		return server.Serve(stdin, stdout, stderr)
	case a == "-h" || a == "--help":
		fmt.Fprint(stdout, help)
		return 0
	case a == "--man":
		fmt.Fprint(stdout, man)
		return 0
	case a == "--version":
		fmt.Fprintln(stdout, toolhost.Name, cli.Version())
		return 0
	case strings.HasPrefix(a, "--serve-"):
		fmt.Fprintf(stderr, "%s: error: tool host protocol %q not understood (this tool host speaks %q)\n", toolhost.Name, a, toolhost.Arg)
		fmt.Fprintf(stderr, "%s: hint: install all delta binaries from the same build (make install)\n", toolhost.Name)
		return 126
	}
	fmt.Fprint(stderr, help)
	return 2
}
