package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cli"
)

// An exec is what an agent calls again and again, so its start-up counts:
// building kong's model interpolates every help text of the grammar (a
// regexp over a few KB), which costs as much as the rest of an exec's Go
// side. parseExec reads the plain forms of an exec command line directly;
// anything else (help, an unknown flag, an argument starting with "-",
// a bad value) goes through kong, which explains it.

// parseExec recognises `exec SESSION_ID [COMMAND...]` with the
// --timeout and --max-output flags (as --flag VALUE or --flag=VALUE)
// before, between or after the arguments, and "--" ending the flags. ok is
// false when kong must parse the line instead.
func parseExec(args []string) (c execCmd, ok bool) {
	if len(args) < 2 || args[0] != "exec" {
		return c, false
	}
	c.Timeout, c.MaxOutput = 10*time.Second, 30000 // the grammar's defaults
	var pos []string
	flags := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !flags || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		if a == "--" {
			flags = false
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if name != "--timeout" && name != "--max-output" {
			return c, false
		}
		if !hasValue {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return c, false
			}
			i++
			value = args[i]
		}
		if !setExecFlag(&c, name, value) {
			return c, false
		}
	}
	if len(pos) == 0 {
		return c, false
	}
	c.ID, c.Command = pos[0], pos[1:]
	return c, true
}

// setExecFlag sets one flag; false when kong should report the value.
func setExecFlag(c *execCmd, name, value string) bool {
	if name == "--timeout" {
		d, err := time.ParseDuration(value)
		c.Timeout = d
		return err == nil
	}
	n, err := strconv.Atoi(value)
	c.MaxOutput = n
	return err == nil
}

// fastExec runs an exec command line that parseExec recognises and
// returns its exit code; ok is false when the line is left to kong.
func fastExec(args []string, std cli.Stdio) (code int, ok bool) {
	c, ok := parseExec(args)
	if !ok {
		return 0, false
	}
	return cli.Report("delta-sessions", std.Err, c.run(std)), true
}
