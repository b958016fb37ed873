package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadEnv returns the variables Delta reads (API keys, base URLs …) merged
// with the .env precedence of seeds/000 §2.6.7, highest first:
// {workDir}/.env, {agentHome}/.env, the project root's .env (the nearest
// directory above workDir, then above agentHome, holding .git), and last
// environ (KEY=VALUE strings, as os.Environ returns). Missing files are
// fine; a file that cannot be read or parsed is an error naming it.
//
// The result is meant for providers only; tool environments are built
// separately and never see .env values.
func LoadEnv(workDir, agentHome string, environ []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			out[k] = v
		}
	}
	for _, f := range envFiles(workDir, agentHome) {
		vars, err := readDotenv(f)
		if err != nil {
			return nil, err
		}
		for k, v := range vars {
			out[k] = v
		}
	}
	return out, nil
}

// envFiles lists the .env candidates lowest precedence first, without
// repeats (a workspace may be its own project root).
func envFiles(workDir, agentHome string) []string {
	var high []string // highest first
	for _, d := range []string{workDir, agentHome} {
		if d != "" {
			high = append(high, filepath.Join(d, ".env"))
		}
	}
	for _, d := range []string{workDir, agentHome} {
		if root := projectRoot(d); root != "" {
			high = append(high, filepath.Join(root, ".env"))
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range high {
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		if !seen[f] {
			seen[f] = true
			out = append([]string{f}, out...) // lowest first
		}
	}
	return out
}

// projectRoot is the nearest directory at or above dir holding .git (a
// directory, or a file in worktrees and submodules); "" if none.
func projectRoot(dir string) string {
	if dir == "" {
		return ""
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func readDotenv(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	vars, err := ParseDotenv(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vars, nil
}
