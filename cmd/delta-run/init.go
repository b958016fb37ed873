package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

//go:embed templates
var templates embed.FS

// InitCmd creates an agent from a template.
type InitCmd struct {
	Name     string `arg:"" help:"Directory of the new agent (its base name becomes the agent name)."`
	Template string `short:"t" help:"Template: minimal, hello-world, sessions, file-ops (file organization), api-tester (HTTP APIs with curl), or a coding agent aligned with one model family: coding-openai (codex tools: shell, apply_patch …), coding-anthropic (Claude Code tools: edit_file …) or coding-gemini (gemini-cli tools: replace, run_shell_command …); the coding agents use the coding plugin, trusted beside delta-run after make build or make install (else: delta plugin install …/delta-plugin-coding)." default:"minimal"`
	Yes      bool   `short:"y" help:"Do not ask anything (init never prompts; accepted for symmetry with run)."`
}

func templateNames() []string {
	entries, _ := templates.ReadDir("templates")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Run writes the template.
func (c *InitCmd) Run(std cli.Stdio) error {
	root := path.Join("templates", c.Template)
	if _, err := fs.Stat(templates, root); err != nil {
		return cli.Errorf(runs.ExitConfig, "templates: "+strings.Join(templateNames(), ", "), "unknown template %q", c.Template)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(c.Name)), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(c.Name, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return cli.Errorf(runs.ExitConfig, "choose another name or remove it first", "%s already exists; init never overwrites", c.Name)
		}
		return fmt.Errorf("create agent directory: %w", err)
	}
	name := filepath.Base(filepath.Clean(c.Name))
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "{{NAME}}", name)
		dst := filepath.Join(c.Name, filepath.FromSlash(strings.TrimPrefix(p, root+"/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(text), 0o644)
	})
	if err != nil {
		return fmt.Errorf("write template: %w", err)
	}
	fmt.Fprintf(std.Err, "Created agent %q in %s (template %s).\n", name, c.Name, c.Template)
	switch {
	case c.Template == "hello-world":
		fmt.Fprintf(std.Err, "Try it (offline, scripted model): delta run --agent %s -m \"Say hello\" -y\n", c.Name)
	case strings.HasPrefix(c.Template, "coding-"):
		key := map[string]string{"coding-openai": "OPENAI_API_KEY", "coding-anthropic": "ANTHROPIC_API_KEY", "coding-gemini": "GEMINI_API_KEY"}[c.Template]
		fmt.Fprintf(std.Err, "It uses the coding and web plugins (trusted beside delta-run when make build or make install put them there); otherwise install each once: delta plugin install \"$(dirname \"$(command -v delta)\")/delta-plugin-coding\" (and …/delta-plugin-web)\n")
		fmt.Fprintf(std.Err, "Run it in a project: delta run --agent %s -w PROJECT -m \"…\" (needs %s or DELTA_API_KEY)\n", c.Name, key)
	default:
		fmt.Fprintf(std.Err, "Run it: delta run --agent %s -m \"…\" (needs DELTA_API_KEY)\n", c.Name)
	}
	return nil
}
