package contextgen

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
)

// gitTimeout bounds each git command of the environment source.
const gitTimeout = 5 * time.Second

// maxStatusLines bounds the git status shown.
const maxStatusLines = 20

// environmentSource tells the model where and when it works: the
// working directory, platform, OS, date and model, and for a git
// repository its branch, a short status and the last commits.
func (b *Builder) environmentSource(ctx context.Context, run engine.RunInfo, src agent.ContextSource) Part {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Working directory: %s\n", run.WorkDir)
	fmt.Fprintf(&sb, "Platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	if osName := osRelease(); osName != "" {
		fmt.Fprintf(&sb, "OS: %s\n", osName)
	}
	fmt.Fprintf(&sb, "Date: %s\n", time.Now().Format("2006-01-02 (Monday)"))
	if provider, model := runModel(run); model != "" {
		if provider != "" {
			model += " (" + provider + ")"
		}
		fmt.Fprintf(&sb, "Model: %s\n", model)
	}
	if git := gitSummary(ctx, run.WorkDir); git != "" {
		sb.WriteString(git)
	} else {
		sb.WriteString("Git: not a git repository\n")
	}
	return textPart(src, sb.String())
}

// osRelease is the PRETTY_NAME of /etc/os-release, "" when unknown.
func osRelease() string {
	data, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// gitSummary is the branch, short status and last commits of the git
// repository holding dir; "" when dir is in none (or git is missing).
func gitSummary(ctx context.Context, dir string) string {
	root, ok := git(ctx, dir, "rev-parse", "--show-toplevel")
	if !ok {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Git repository: %s\n", root)
	if branch, ok := git(ctx, dir, "branch", "--show-current"); ok && branch != "" {
		fmt.Fprintf(&sb, "Branch: %s\n", branch)
	}
	if status, ok := git(ctx, dir, "status", "--short"); ok {
		if status == "" {
			sb.WriteString("Status: clean\n")
		} else {
			lines := strings.Split(status, "\n")
			more := ""
			if len(lines) > maxStatusLines {
				more = fmt.Sprintf("  [... %d more changed files]\n", len(lines)-maxStatusLines)
				lines = lines[:maxStatusLines]
			}
			fmt.Fprintf(&sb, "Status:\n  %s\n%s", strings.Join(lines, "\n  "), more)
		}
	}
	if log, ok := git(ctx, dir, "log", "--oneline", "-5"); ok && log != "" {
		fmt.Fprintf(&sb, "Recent commits:\n  %s\n", strings.ReplaceAll(log, "\n", "\n  "))
	}
	return sb.String()
}

// git runs git in dir and returns its trimmed output; ok is false when
// it fails.
func git(ctx context.Context, dir string, args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--no-optional-locks"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return strings.TrimRight(string(out), "\n"), true
}
