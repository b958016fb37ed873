package coding

import "github.com/deltakit/delta/plugins/sdk"

// Limit is one tool's output limit (seeds/001 §5.2, §5.3).
type Limit struct {
	MaxChars int
	Mode     string
	MaxLines int // 0: none
}

// Limits are the default output limits of the coding tools.
var Limits = map[string]Limit{
	"read_file":   {50000, sdk.HeadTail, 0},
	"grep":        {20000, sdk.Tail, 200},
	"glob":        {20000, sdk.Tail, 500},
	"edit_file":   {10000, sdk.Tail, 0},
	"apply_patch": {10000, sdk.Tail, 0},
	"write_file":  {1000, sdk.Tail, 0},
	// Listings and batches of files, like glob and read_file.
	"list_dir":        {20000, sdk.HeadTail, 500},
	"read_many_files": {50000, sdk.HeadTail, 0},
	// The shell cuts its own output (observe.CommandLimits), naming the file that
	// keeps all of it; this limit is for its errors.
	"shell": {30000, sdk.HeadTail, 256},
}

// TruncateTool applies tool's limits: characters first, then lines.
func TruncateTool(tool, out string) string {
	l, ok := Limits[tool]
	if !ok {
		return out
	}
	out = TruncateChars(out, l.MaxChars, l.Mode)
	if l.MaxLines > 0 {
		out = TruncateLines(out, l.MaxLines)
	}
	return out
}

// TruncateChars is seeds/001 §5.1 truncate_output, counting characters
// (runes), with the warning that tells the model output is missing: the
// head_tail mode is the one every tool gets; tail keeps the end of search
// results.
func TruncateChars(out string, maxChars int, mode string) string {
	return sdk.Truncate(out, sdk.Limits{MaxChars: maxChars, Mode: mode})
}

// TruncateLines is seeds/001 §5.3 truncate_lines, as every tool gets it.
func TruncateLines(out string, maxLines int) string {
	return sdk.Truncate(out, sdk.Limits{MaxLines: maxLines})
}

// cutOutput is what the model sees of a tool's output: within the tool's
// limits it is the output itself; past them, the part the tool's mode
// keeps with one marker giving the whole output's size and the file, in
// the call's record, that keeps all of it (as the shell's marker does).
// Outside a run (no run to keep it in) the seed's markers say what was
// removed.
func cutOutput(req sdk.CallRequest, tool, out string) string {
	l, ok := Limits[tool]
	if !ok {
		return out
	}
	cut, err := req.Cut(out, sdk.Limits{MaxChars: l.MaxChars, MaxLines: l.MaxLines, Mode: l.Mode})
	if err != nil {
		return TruncateTool(tool, out)
	}
	return cut
}
