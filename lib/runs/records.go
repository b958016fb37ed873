package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deltakit/delta/lib/execute"
)

// The record directories under a run directory: what the run sent and
// ran, kept for people and tools to inspect (the journal refers to them).
const (
	// InvocationsDir holds one {timestamp}_{iteration}.json per model call.
	InvocationsDir = "io/invocations"
	// ToolExecutionsDir holds one record per tool call.
	ToolExecutionsDir = "io/tool_executions"
	// HooksDir holds one numbered directory per lifecycle hook run.
	HooksDir = "io/hooks"
	// GeneratorsDir holds one numbered directory per computed_file
	// generator command run.
	GeneratorsDir = "io/generators"
)

// ReserveRecord creates the next numbered record directory
// dir/{seq}_{name} under runDir (dir is one of the record directories),
// with the given subdirectories, and returns its absolute path and its
// path relative to runDir. seq is one more than the highest number already
// there, zero-padded to three digits; Mkdir makes the choice atomic, so two
// processes never share a record.
func ReserveRecord(runDir, dir, name string, subdirs ...string) (abs, rel string, err error) {
	base := filepath.Join(runDir, filepath.FromSlash(dir))
	if err := MkdirIn(runDir, base); err != nil {
		return "", "", fmt.Errorf("create %s: %w", dir, err)
	}
	for range 100 {
		seq, err := nextSeq(base, dir)
		if err != nil {
			return "", "", err
		}
		entry := fmt.Sprintf("%03d_%s", seq, name)
		abs = filepath.Join(base, entry)
		err = os.Mkdir(abs, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("create record under %s: %w", dir, err)
		}
		for _, sub := range subdirs {
			if err := os.Mkdir(filepath.Join(abs, sub), 0o755); err != nil {
				return "", "", fmt.Errorf("create record under %s: %w", dir, err)
			}
		}
		return abs, dir + "/" + entry, nil
	}
	return "", "", fmt.Errorf("create record: too many at once under %s", base)
}

// nextSeq is one more than the highest leading number of base's entries.
func nextSeq(base, dir string) (int, error) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", dir, err)
	}
	highest := 0
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n > highest {
			highest = n
		}
	}
	return highest + 1, nil
}

// The files of the record of a command Delta ran (WriteExecMeta), beside
// the logs lib/execute writes.
const (
	// CommandFile is the command line, ready to paste into a shell.
	CommandFile = "command.txt"
	// ExitCodeFile is the command's exit code, or why it has none.
	ExitCodeFile = "exit_code.txt"
)

// WriteExecMeta completes the record of a command Delta ran (a hook, a
// generator) in dir, where execute.Run wrote stdout.log and stderr.log:
// command.txt (the command line, ready to paste into a shell) and
// exit_code.txt (the code, or "timeout", "interrupted", "not started: …").
// When the command never started, empty logs stand in for the missing ones.
func WriteExecMeta(dir string, argv []string, exitCode string, started bool) error {
	files := map[string]string{
		CommandFile:  shellQuote(argv) + "\n",
		ExitCodeFile: exitCode + "\n",
	}
	if !started {
		files[execute.StdoutLogName], files[execute.StderrLogName] = "", ""
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// shellQuote renders argv as one line a person can paste into a shell.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// ErrRunDirGone is a run directory removed while its run was running.
var ErrRunDirGone = errors.New("the run directory was removed while the run was running")

// MkdirIn creates the directory dir (absolute, inside runDir) and its
// parents below runDir, but never runDir itself: a run whose directory
// was removed must not have it recreated, half empty, by its records.
func MkdirIn(runDir, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if _, err := os.Stat(runDir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrRunDirGone, runDir)
	}
	return os.MkdirAll(dir, 0o755)
}
