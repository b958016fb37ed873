package sandbox

import "strings"

// refusals are how programs report what Landlock answers a refused write
// or connect with (EACCES, EPERM), what a read-only view of a file
// system looks like to some of them (EROFS), and a connect in the network
// namespace that confines the network where Landlock cannot (ENETUNREACH).
var refusals = []string{"permission denied", "operation not permitted", "read-only file system", "eacces", "eperm",
	"network is unreachable"}

// Refused reports whether output (a failed command's stdout and stderr)
// looks like the sandbox refused it something.
func Refused(output string) bool {
	low := strings.ToLower(output)
	for _, s := range refusals {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// Note is what the model is told after the output of a failed command
// that Refused: that the sandbox, not the program, said no, and what the
// sandbox allows, so that it does not retry the same thing.
func (r Rules) Note() string {
	var b strings.Builder
	b.WriteString("(the sandbox refused this: " + string(r.Mode) + " mode; ")
	switch r.Mode {
	case ReadOnly:
		b.WriteString("no file may be written")
	default:
		b.WriteString("writes outside the workspace, the temp directory and the sandbox's writable paths are not allowed")
	}
	if !r.Network {
		b.WriteString("; network connections are not allowed")
		if len(r.Ports) > 0 {
			b.WriteString(" except to the allowed ports")
		}
	}
	b.WriteString(")")
	return b.String()
}
