package contextgen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
)

// ProjectDocsBudget bounds the project_docs source: the instruction files
// together, past which the rest is cut with a marker.
const ProjectDocsBudget = 32 * 1024

// projectDocFiles are the instruction files a project_docs source reads in
// each directory: AGENTS.md always, and the file of the agent's provider's
// own tool (Claude Code, Codex, gemini-cli).
func projectDocFiles(provider string) []string {
	names := []string{"AGENTS.md"}
	switch provider {
	case "anthropic":
		names = append(names, "CLAUDE.md")
	case "gemini", "google":
		names = append(names, "GEMINI.md")
	case "openai", "":
		names = append(names, filepath.Join(".codex", "instructions.md"))
	}
	return names
}

// projectDocsSource gathers the project's instruction files from the git
// root (or the workspace, outside a repository) down to the workspace,
// outermost first, within ProjectDocsBudget bytes.
func (b *Builder) projectDocsSource(ctx context.Context, run engine.RunInfo, src agent.ContextSource) (Part, error) {
	provider, _ := runModel(run)
	var sb strings.Builder
	left := ProjectDocsBudget
	for _, dir := range docDirs(ctx, run.WorkDir) {
		for _, name := range projectDocFiles(provider) {
			path := filepath.Join(dir, name)
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			header := fmt.Sprintf("## %s\n\n", path)
			if left <= len(header) {
				fmt.Fprintf(&sb, "[... %s and any later files left out: the project docs budget of %d bytes is used up ...]\n", path, ProjectDocsBudget)
				return textPart(src, sb.String()), nil
			}
			sb.WriteString(header)
			left -= len(header)
			text := string(data)
			if len(text) > left {
				fmt.Fprintf(&sb, "%s\n[... %s truncated: %d of its %d bytes shown; the project docs budget is %d bytes ...]\n",
					cutUTF8(text, left), path, left, len(text), ProjectDocsBudget)
				return textPart(src, sb.String()), nil
			}
			sb.WriteString(text)
			if !strings.HasSuffix(text, "\n") {
				sb.WriteByte('\n')
			}
			sb.WriteByte('\n')
			left -= len(text) + 1
		}
	}
	if sb.Len() == 0 {
		return Part{Skipped: true}, nil
	}
	return textPart(src, strings.TrimRight(sb.String(), "\n")+"\n"), nil
}

// runModel is the provider and model the run talks to (delta-run gives
// the agent's llm block with --llm and DELTA_MODEL applied; agent.Load
// reads a model naming its provider, such as sonnet, as both).
func runModel(run engine.RunInfo) (provider, model string) {
	if run.Agent == nil {
		return "", ""
	}
	return run.Agent.LLM.Provider, run.Agent.LLM.Model
}

// docDirs are the directories from the git root holding dir down to dir
// (only dir outside a repository).
func docDirs(ctx context.Context, dir string) []string {
	root, ok := git(ctx, dir, "rev-parse", "--show-toplevel")
	if !ok {
		return []string{dir}
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	d := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		d = r
	}
	rel, err := filepath.Rel(root, d)
	if err != nil || strings.HasPrefix(rel, "..") {
		return []string{dir}
	}
	dirs := []string{root}
	cur := root
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, part)
			dirs = append(dirs, cur)
		}
	}
	return dirs
}

// cutUTF8 is the first n bytes of s, shortened to a character boundary.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
