package coding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is returned for a path that leaves the workspace
// while the config does not allow it.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// resolve makes p absolute against the workspace ws and refuses it when it
// leaves ws (through ".." or a symlink) unless allowed.
func (t *Tools) resolve(ws, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty path", ErrArguments)
	}
	if ws == "" {
		ws, _ = os.Getwd()
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws, p)
	}
	abs = filepath.Clean(abs)
	if t.Config.AllowOutsideWorkspace {
		return abs, nil
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		root = filepath.Clean(ws)
	}
	if !within(root, realPath(abs)) {
		return "", fmt.Errorf("%w: %s is not under %s (the plugin config allow_outside_workspace: true allows it)", ErrOutsideWorkspace, p, ws)
	}
	return abs, nil
}

type readRootsKey struct{}

// resolveRead is resolve for a tool that only reads: besides the
// workspace it may read in the agent's skill folders (the call's
// sdk.CallRequest.SkillDirs), whose SKILL.md files the skills context
// source tells the model to read.
func (t *Tools) resolveRead(ctx context.Context, ws, p string) (string, error) {
	abs, err := t.resolve(ws, p)
	if !errors.Is(err, ErrOutsideWorkspace) {
		return abs, err
	}
	roots, _ := ctx.Value(readRootsKey{}).([]string)
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	real := realPath(filepath.Clean(p))
	for _, r := range roots {
		if within(realPath(r), real) {
			return filepath.Clean(p), nil
		}
	}
	return "", err
}

// realPath resolves symlinks in the longest existing prefix of p.
func realPath(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// display is how a path is shown to the model: relative to the workspace
// when inside it.
func display(ws, abs string) string {
	if ws != "" && within(ws, abs) {
		if rel, err := filepath.Rel(ws, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
