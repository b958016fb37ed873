package contextgen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
)

// computedSource runs a computed_file source's generator and reads its
// output: an external command (seeds/000 §2.4.3) that writes output_path,
// or an in-process jq program whose result is used directly.
func (b *Builder) computedSource(ctx context.Context, run engine.RunInfo, src agent.ContextSource, events func() ([]journal.Event, error)) (Part, error) {
	g := src.Generator
	if g == nil || (len(g.Command) == 0 && g.JQ == "" && g.JQFile == "") {
		return Part{}, fmt.Errorf("%w: computed_file source without generator command, jq or jq_file", ErrSource)
	}
	outPath := ""
	if src.OutputPath != "" {
		outPath = Expand(src.OutputPath, run.AgentHome, run.WorkDir)
	}
	timeout := time.Duration(g.TimeoutMS) * time.Millisecond
	if g.TimeoutMS <= 0 {
		timeout = DefaultGeneratorTimeoutMS * time.Millisecond
	}
	if len(g.Command) == 0 {
		evs, err := events()
		if err != nil {
			return Part{}, err
		}
		out, err := runJQ(ctx, run, g, evs, b.environ(run.Agent), timeout)
		if err != nil {
			return Part{}, err
		}
		if outPath != "" {
			if err := writeOutput(outPath, out); err != nil {
				return Part{}, err
			}
		}
		return textPart(src, out), nil
	}
	if outPath == "" {
		return Part{}, fmt.Errorf("%w: computed_file source with a generator command needs output_path", ErrSource)
	}
	argv := ExpandAll(g.Command, run.AgentHome, run.WorkDir)
	// A file left by an earlier build must not pass for this one's output:
	// a generator that exits 0 without writing would serve stale text.
	if err := os.Remove(outPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Part{}, fmt.Errorf("remove the previous output %q before running the generator: %w", outPath, err)
	}
	if err := runGenerator(ctx, src.ID, argv, run, generatorEnv(b.environ(run.Agent), run, outPath), timeout); err != nil {
		return Part{}, err
	}
	content, ok, err := readMaybe(outPath, src.OnMissing)
	if errors.Is(err, ErrMissing) {
		return Part{}, fmt.Errorf("generator %q exited 0 without writing output_path: %w", argv[0], err)
	}
	if err != nil {
		return Part{}, fmt.Errorf("generator %q ran but its output: %w", argv[0], err)
	}
	if !ok {
		return Part{Skipped: true}, nil
	}
	return textPart(src, content), nil
}

// generatorEnv is the inherited environment, the run's variables
// (engine.RunInfo.Env) and OUTPUT_PATH, the file the generator writes.
func generatorEnv(environ []string, run engine.RunInfo, outPath string) []string {
	return append(append(append([]string(nil), environ...), run.Env()...), "OUTPUT_PATH="+outPath)
}

func writeOutput(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write generator output: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write generator output: %w", err)
	}
	return nil
}
