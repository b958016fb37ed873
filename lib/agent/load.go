package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Config file names of an agent directory.
const (
	AgentFile   = "agent.yaml"
	LegacyFile  = "config.yaml" // v1.1 name, deprecated
	HooksFile   = "hooks.yaml"
	ContextFile = "context.yaml"
	// DefaultSystemPrompt is system_prompt's default.
	DefaultSystemPrompt = "system_prompt.md"
)

// loader carries the state of one Load: the agent home and every problem
// and warning found so far.
type loader struct {
	home     string
	cwd      string
	problems []Problem
	warnings []string
	mcp      []MCPServer // mcp_servers of the imports and the agent, merged
	settings []Setting   // per-run overrides of agent.yaml (LoadWith)
}

func (l *loader) add(p Problem) { l.problems = append(l.problems, p) }

func (l *loader) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// display shows a path relative to the working directory when it is below
// it, so messages stay short and clickable.
func (l *loader) display(path string) string {
	if l.cwd != "" {
		if rel, err := filepath.Rel(l.cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

// Load reads the agent at path (its directory, or its agent.yaml or
// config.yaml), follows imports, reads hooks.yaml and context.yaml, and
// validates everything (seeds/000 §2.7.5). On failure it returns a
// *LoadError listing every problem found. Non-fatal findings (deprecated
// config.yaml or lifecycle_hooks, both config files present) are in
// Agent.Warnings, each a complete line for stderr.
func Load(path string) (*Agent, error) {
	return (&loader{}).run(path)
}

// run is Load with the loader's settings.
func (l *loader) run(path string) (*Agent, error) {
	l.cwd, _ = os.Getwd()
	a, err := l.load(path)
	if err != nil {
		return nil, err
	}
	if len(l.problems) > 0 {
		return nil, &LoadError{Problems: l.problems}
	}
	a.Warnings = l.warnings
	return a, nil
}

// load runs the loader workflow; fatal early problems return at once.
func (l *loader) load(path string) (*Agent, error) {
	configPath, err := l.locate(path)
	if err != nil {
		return nil, err
	}
	d, root := l.readDoc(configPath)
	if root == nil {
		return nil, &LoadError{Problems: l.problems}
	}
	if len(l.settings) > 0 && root.Kind == yaml.MappingNode {
		for _, s := range l.settings {
			s.apply(root)
		}
	}
	a := &Agent{Home: l.home, ConfigPath: configPath}
	legacyHooks := l.decodeAgent(d, root, a)
	l.loadHooks(a, d, legacyHooks)
	l.loadContext(a)
	return a, nil
}

// locate finds the agent home and its main config file.
func (l *loader) locate(path string) (string, error) {
	if path == "" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("agent path %q: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", &LoadError{Problems: []Problem{{File: path, Msg: "agent directory or config file not found", Hint: "give the agent directory (holding agent.yaml), or create one with: delta init NAME", Err: ErrNoConfig}}}
	}
	dir, file := abs, ""
	if !info.IsDir() {
		dir, file = filepath.Dir(abs), abs
	}
	if l.home, err = filepath.EvalSymlinks(dir); err != nil {
		return "", fmt.Errorf("resolve agent home %q: %w", dir, err)
	}
	if file != "" {
		if err := checkConfigName(path, file); err != nil {
			return "", err
		}
		if resolved, err := filepath.EvalSymlinks(file); err == nil {
			file = resolved
		}
		if filepath.Base(file) == LegacyFile {
			l.warn("[DEPRECATION WARNING] %s: config.yaml is deprecated, rename it to agent.yaml (support ends in v2.0)", l.display(file))
		}
		return file, nil
	}
	agentYAML := filepath.Join(l.home, AgentFile)
	legacy := filepath.Join(l.home, LegacyFile)
	hasAgent, hasLegacy := exists(agentYAML), exists(legacy)
	switch {
	case hasAgent && hasLegacy:
		l.warn("[WARNING] both agent.yaml and config.yaml exist in %s: using agent.yaml, config.yaml is ignored (delete it)", l.display(l.home))
		return agentYAML, nil
	case hasAgent:
		return agentYAML, nil
	case hasLegacy:
		l.warn("[DEPRECATION WARNING] %s: config.yaml is deprecated, rename it to agent.yaml (support ends in v2.0)", l.display(legacy))
		return legacy, nil
	}
	return "", &LoadError{Problems: []Problem{{File: l.display(l.home), Msg: "no agent.yaml (or legacy config.yaml) in the agent directory", Hint: "create one with: delta init NAME, or see man 5 delta-agent", Err: ErrNoConfig}}}
}

// checkConfigName refuses a file given as the agent that cannot be its
// main config (the system prompt, context.yaml, hooks.yaml, a script), so
// the user is not shown that file's content judged as agent.yaml.
func checkConfigName(given, file string) error {
	base := filepath.Base(file)
	ext := filepath.Ext(base)
	if (ext == ".yaml" || ext == ".yml") && base != ContextFile && base != HooksFile {
		return nil
	}
	return &LoadError{Problems: []Problem{{File: given, Msg: fmt.Sprintf("expected the agent directory or its agent.yaml (or config.yaml), got %s", base), Hint: "give the agent directory: " + filepath.Dir(given), Err: ErrNoConfig}}}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// resolveInside resolves a path written in file d (relative to base),
// following symlinks, and checks it stays inside the agent home. It
// reports a problem at n and returns "" when it does not, or when the file
// does not exist.
func (l *loader) resolveInside(d *doc, n *yaml.Node, base, written, what string) string {
	p := written
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		kind := ErrMissingFile
		if !errors.Is(err, os.ErrNotExist) {
			kind = ErrInvalid
		}
		d.problem(n, kind, "", "%s %q not found (looked for %s)", what, written, l.display(p))
		return ""
	}
	if !l.inside(resolved) {
		d.problem(n, ErrOutsideHome, "keep every file the agent uses inside its directory "+l.display(l.home), "%s %q resolves to %s, outside the agent home", what, written, resolved)
		return ""
	}
	return resolved
}

// inside reports whether a resolved path is the home or below it.
func (l *loader) inside(resolved string) bool {
	rel, err := filepath.Rel(l.home, resolved)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
