package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deltakit/delta/lib/agent"
)

// HooksDir is where hook records live, relative to the run directory.
const HooksDir = "io/hooks"

// reserve creates the next io/hooks/{seq}_{hook} directory with its input,
// output and execution_meta subdirectories. seq is one more than the
// highest number already there, zero-padded to three digits; Mkdir makes
// the choice atomic, so two processes never share a record.
func reserve(runDir string, name agent.HookName) (abs, rel string, err error) {
	base := filepath.Join(runDir, filepath.FromSlash(HooksDir))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", "", fmt.Errorf("create %s: %w", HooksDir, err)
	}
	for range 100 {
		seq, err := nextSeq(base)
		if err != nil {
			return "", "", err
		}
		dir := fmt.Sprintf("%03d_%s", seq, name)
		abs = filepath.Join(base, dir)
		err = os.Mkdir(abs, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("create hook record: %w", err)
		}
		for _, sub := range []string{"input", "output", "execution_meta"} {
			if err := os.Mkdir(filepath.Join(abs, sub), 0o755); err != nil {
				return "", "", fmt.Errorf("create hook record: %w", err)
			}
		}
		return abs, HooksDir + "/" + dir, nil
	}
	return "", "", fmt.Errorf("create hook record: too many concurrent hooks under %s", base)
}

// nextSeq is one more than the highest leading number of base's entries.
func nextSeq(base string) (int, error) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", HooksDir, err)
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
