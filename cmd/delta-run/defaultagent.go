package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
)

// The built-in agent: with no --agent and no agent.yaml in the current
// directory, delta run (and delta chat through it) runs the coding agent
// made for the model's family, as claude, codex and gemini run in any
// directory. Its files are the coding-* template, written into the user's
// state directory (never into the project), and its workspace is the
// current directory, so its runs live in ./.delta like those of -w .

// builtinAgent is one of the coding templates used as the built-in agent.
type builtinAgent struct {
	// template is the template's name: coding-openai …
	template string
	// home is where its files are written.
	home string
}

// builtinProviders are the template of each provider family; every other
// provider (openai-compatible, scripted, replay) gets codex's tools.
var builtinProviders = map[string]string{"anthropic": "coding-anthropic", "gemini": "coding-gemini"}

// builtinModels are the model of each template when nothing else names one.
var builtinModels = map[string]string{"coding-openai": "gpt-5", "coding-anthropic": "claude-sonnet-4-5", "coding-gemini": "gemini-2.5-pro"}

// builtinRoot is where the built-in agents' files live:
// $XDG_STATE_HOME/delta/agents, else ~/.local/state/delta/agents.
func builtinRoot() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", cli.WithCode(runs.ExitConfig, "set XDG_STATE_HOME, or give an agent with --agent DIR", fmt.Errorf("find the built-in agent's directory: %w", err))
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Abs(filepath.Join(dir, "delta", "agents"))
}

// wantsBuiltin reports whether dir, the agent directory a run names, is
// the current directory without an agent in it.
func wantsBuiltin(dir string, named bool) bool {
	if named {
		return false
	}
	for _, f := range []string{"agent.yaml", "config.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return false
		}
	}
	return true
}

// chooseBuiltin picks the template for the model family the run will use:
// --llm, else the user config's llm, else DELTA_MODEL (environment or a
// .env file of the current directory), else OpenAI's.
func chooseBuiltin(llmFlag string, user *agent.UserConfig) (*builtinAgent, error) {
	env, err := provider.LoadEnv(".", "", os.Environ())
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "", err)
	}
	family := ""
	if name, _, err := provider.ParseModel(llmFlag); llmFlag != "" && err == nil {
		family = name
	} else if user != nil && user.Provider != "" {
		family = user.Provider
	} else if user != nil && user.Model != "" {
		family, _, _ = provider.SplitModel(user.Model)
	}
	if family == "" {
		family, _, _ = provider.SplitModel(strings.TrimSpace(env[modelVar]))
	}
	tmpl, ok := builtinProviders[family]
	if !ok {
		tmpl = "coding-openai"
	}
	root, err := builtinRoot()
	if err != nil {
		return nil, err
	}
	return &builtinAgent{template: tmpl, home: filepath.Join(root, tmpl)}, nil
}

// builtinOf is the built-in agent whose files are in home (nil when home
// is an agent of the user's): continue finds a run's agent this way.
func builtinOf(home string) *builtinAgent {
	root, err := builtinRoot()
	if err != nil {
		return nil
	}
	// The loader names an agent's home by its real path.
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if filepath.Dir(filepath.Clean(home)) != root {
		return nil
	}
	tmpl := filepath.Base(home)
	if _, ok := builtinModels[tmpl]; !ok {
		return nil
	}
	return &builtinAgent{template: tmpl, home: filepath.Clean(home)}
}

// llmLines are agent.yaml's llm.provider and llm.model lines: the built-in
// agent leaves both to the flags, the environment and the user config
// (builtinAgent.llm gives its defaults last). Compiled on first use, as
// emptyLLM: only a run of the built-in agent needs them, every start would
// pay.
var llmLines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^  (provider|model): .*\n`) })

// emptyLLM is an llm block left with comments only, which YAML reads as
// null (agent.yaml refuses that): it becomes llm: {}.
var emptyLLM = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^llm:\n((?:[ \t]*#.*\n|[ \t]*\n)*)(\S|\z)`)
})

// materialise writes the template's files into b.home, each only when it
// differs (a file is replaced atomically, so runs starting side by side
// always read a whole file).
func (b *builtinAgent) materialise() error {
	root := path.Join("templates", b.template)
	err := fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "{{NAME}}", b.template)
		if path.Base(p) == "agent.yaml" {
			text = emptyLLM().ReplaceAllString(llmLines().ReplaceAllString(text, ""), "llm: {}\n$1$2")
		}
		dst := filepath.Join(b.home, filepath.FromSlash(strings.TrimPrefix(p, root+"/")))
		if old, err := os.ReadFile(dst); err == nil && string(old) == text {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return atomicfile.Write(dst, []byte(text), 0o644)
	})
	if err != nil {
		return cli.WithCode(runs.ExitConfig, "set XDG_STATE_HOME to a writable directory, or give an agent with --agent DIR",
			fmt.Errorf("write the built-in agent into %s: %w", b.home, err))
	}
	return nil
}

// llm gives cfg the built-in agent's defaults where the flags, the
// environment (env: with the .env files) and the user config named
// nothing: the family's provider (Chat Completions when only a base URL is
// set, the usual case of a local server) and model.
func (b *builtinAgent) llm(cfg agent.LLMConfig, env map[string]string) agent.LLMConfig {
	if cfg.DefaultProvider {
		switch {
		case b.template != "coding-openai":
			cfg.Provider = strings.TrimPrefix(b.template, "coding-")
		case cfg.BaseURL != "" || strings.TrimSpace(env["DELTA_BASE_URL"]) != "" || strings.TrimSpace(env["OPENAI_BASE_URL"]) != "":
			cfg.Provider = "openai-compatible"
		}
		// DefaultProvider stays: a model naming its provider (sonnet,
		// anthropic/…) still picks it.
	}
	if cfg.Model == "" && strings.TrimSpace(env[modelVar]) == "" {
		cfg.Model = builtinModels[b.template]
	}
	return cfg
}
