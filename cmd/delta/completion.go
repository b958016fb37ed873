package main

import (
	"embed"
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

//go:embed completions
var completions embed.FS

// commands are the words delta completes first; each command's flags are
// read from its --help when they are completed.
var commands = []string{"run", "continue", "list-runs", "ps", "config", "stop", "log", "send", "fork", "prune", "init", "chat", "tool", "tool:expand", "context", "sessions", "pty", "mcp", "workflow", "plugin", "doctor", "sandbox", "otel", "cluster", "worker", "batch", "pull", "completion", "help"}

// completion prints the completion script for shell.
func completion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, `bash: eval "$(delta completion bash)"; zsh: source <(delta completion zsh); fish: delta completion fish | source`, "delta completion takes one shell: bash, zsh or fish"))
	}
	data, err := completions.ReadFile("completions/delta." + args[0])
	if err != nil || strings.ContainsAny(args[0], "/.") {
		return cli.Report("delta", stderr, cli.Errorf(cli.ExitUsage, "shells: bash, zsh, fish", "no completion for shell %q", args[0]))
	}
	fmt.Fprint(stdout, strings.ReplaceAll(string(data), "@COMMANDS@", strings.Join(commands, " ")))
	return runs.ExitCompleted
}
