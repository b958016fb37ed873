package contextgen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
)

// fileSource reads a file source's path (${AGENT_HOME}, ${CWD} expanded).
func (b *Builder) fileSource(run engine.RunInfo, src agent.ContextSource) (Part, error) {
	if src.Path == "" {
		return Part{}, fmt.Errorf("%w: file source without path", ErrSource)
	}
	path := Expand(src.Path, run.AgentHome, run.WorkDir)
	content, ok, err := readMaybe(path, src.OnMissing)
	if err != nil || !ok {
		return Part{Skipped: !ok && err == nil}, err
	}
	return textPart(src, content), nil
}

// readMaybe reads path; a missing file is an ErrMissing error unless
// onMissing is "skip", in which case ok is false.
func readMaybe(path, onMissing string) (content string, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if onMissing == "skip" {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read %q: %w (set on_missing: skip to allow it)", path, ErrMissing)
	}
	if err != nil {
		return "", false, fmt.Errorf("read %q: %w", path, err)
	}
	return string(data), true, nil
}

// textPart is the system message of a file or computed_file source, cut to
// its max_tokens.
func textPart(src agent.ContextSource, content string) Part {
	content, cut := truncateText(content, src.MaxTokens)
	return Part{Messages: []llm.Message{block(src, content)}, Truncated: cut}
}
