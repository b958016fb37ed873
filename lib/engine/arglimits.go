package engine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Linux limits on what exec(2) accepts: one argument or environment
// string at most MAX_ARG_STRLEN bytes, and all of them together at most
// ARG_MAX (a quarter of the 8 MiB default stack). Checking them first turns
// "fork/exec: argument list too long" into an error that names the tool,
// the argument and the limit.
const (
	maxArgStrlen = 32 * 4096
	maxArgTotal  = 2 * 1024 * 1024
)

// checkArgLimits returns the observation for a call whose command line
// exec would refuse, or "" when it fits. args names the parameter a long
// argument came from.
func checkArgLimits(tool string, argv, env []string, args json.RawMessage) string {
	total := 0
	for _, s := range env {
		total += len(s) + 1
	}
	for i, a := range argv {
		total += len(a) + 1
		if len(a) < maxArgStrlen {
			continue
		}
		what := fmt.Sprintf("argument %d of the command", i)
		if p := longParam(args, a); p != "" {
			what = fmt.Sprintf("parameter %q", p)
		}
		return fmt.Sprintf("error: %s: %s is %d bytes, and one command-line argument may hold at most %d; "+
			"pass long text on stdin instead (a stdin: parameter) or write it to a file first", tool, what, len(a), maxArgStrlen-1)
	}
	if total > maxArgTotal {
		return fmt.Sprintf("error: %s: its command line and environment come to %d bytes, over the %d bytes exec allows; "+
			"pass long text on stdin instead (a stdin: parameter) or write it to a file first", tool, total, maxArgTotal)
	}
	return ""
}

// longParam names the parameter whose value makes up most of arg.
func longParam(args json.RawMessage, arg string) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	best, size := "", 0
	for k, v := range m {
		s := fmt.Sprint(v)
		if len(s) > size && strings.Contains(arg, s) {
			best, size = k, len(s)
		}
	}
	return best
}
