package engine

import (
	"encoding/json"
	"os"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// Live output. A call that runs a command has its output written, from
// the first byte, to the files ACTION_REQUEST names (runs.CallOutput):
// command tools through execute's logs, plugins through the SDK's
// RunCommand, which finds the same names from the call's variables. The
// engine itself never reads them back: whoever watches the run (the live
// stream, delta log -f in another process, tail -f) follows the files, so
// a tool printing a gigabyte costs the engine what writing it costs.

// OutputStreamer is a Toolbox whose calls may run commands whose output
// goes to the call's output files while they run (CommandTools, the
// plugin host): their ACTION_REQUEST names the files.
type OutputStreamer interface {
	StreamsOutput(name string) bool
}

// StreamsOutput: every command tool runs a command.
func (c *CommandTools) StreamsOutput(name string) bool { return c.Has(name) }

// StreamsOutput asks the box that has name.
func (m merged) StreamsOutput(name string) bool {
	for _, b := range m {
		if b.Has(name) {
			s, ok := b.(OutputStreamer)
			return ok && s.StreamsOutput(name)
		}
	}
	return false
}

// liveFiles are the absolute paths a call's output is written to as it
// runs ("" outside a run directory).
func liveFiles(run RunInfo, callID string) (stdout, stderr string) {
	if run.RunDir == "" {
		return "", ""
	}
	return runs.CallOutputIn(run.RunDir, run.Iteration, callID)
}

// describeCall adds to an ACTION_REQUEST what a watcher needs before the
// call ends: the output files of a tool that streams its output, and the
// paths its arguments name.
func (e *Engine) describeCall(ev *journal.Event, args json.RawMessage) {
	if s, ok := e.Tools.(OutputStreamer); ok && e.Run.RunDir != "" && s.StreamsOutput(ev.ToolName) {
		ev.OutputFile, ev.StderrFile = runs.CallOutput(ev.Iteration, ev.CallID)
	}
	switch paths := tool.ArgPaths(args); len(paths) {
	case 0:
	case 1:
		ev.Path = paths[0]
	default:
		ev.Paths = paths
	}
}

// redactLiveOutput redacts r's secrets in a call's output files that stay
// (the record names them) as RedactOutputFiles does in the record's own.
func redactLiveOutput(r *redact.Redactor, runDir string, it int, callID string) {
	if r == nil || runDir == "" {
		return
	}
	out, errOut := runs.CallOutputIn(runDir, it, callID)
	for _, p := range []string{out, errOut} {
		redactFile(r, p)
	}
}

// redactFile redacts the secrets in one output file, left as it is when
// larger than maxRedactedLog.
func redactFile(r *redact.Redactor, p string) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > maxRedactedLog {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil || !r.Contains(data) {
		return
	}
	_ = os.WriteFile(p, r.Bytes(data), fi.Mode().Perm())
}
