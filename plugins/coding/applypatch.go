package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// applyPatchTool applies a patch in the apply_patch format (ComputePatch)
// whole or not at all: every target is resolved and every new content
// staged beside its file before the first file changes.
func applyPatchTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		Patch string `json:"patch"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	read := func(path string) (string, error) {
		p, err := t.resolve(ws, path)
		if err != nil {
			return "", err
		}
		if err := t.mustHaveRead(p, path); err != nil {
			return "", err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fileError(path, err)
		}
		return string(data), nil
	}
	changes, err := ComputePatch(a.Patch, read)
	if err != nil {
		return "", notApplied(err)
	}
	targets, err := t.patchTargets(ws, changes)
	if err != nil {
		return "", notApplied(err)
	}
	staged := make([]string, len(changes))
	defer func() {
		for _, tmp := range staged {
			if tmp != "" {
				os.Remove(tmp)
			}
		}
	}()
	if err := stageChanges(changes, targets, staged); err != nil {
		return "", notApplied(err)
	}
	out, err := commitChanges(changes, targets, staged)
	for _, tg := range targets {
		saw(ctx, tg.from) // gone when deleted or moved: nothing is stamped
		if tg.to != "" {
			saw(ctx, tg.to)
		}
	}
	return out, err
}

// patchTarget is where a change of a patch goes: the file it changes and,
// for a move, the file it becomes.
type patchTarget struct{ from, to string }

// patchTargets resolves every change's files inside the workspace, before
// anything is written.
func (t *Tools) patchTargets(ws string, changes []Change) ([]patchTarget, error) {
	targets := make([]patchTarget, len(changes))
	var err error
	for i, c := range changes {
		if targets[i].from, err = t.resolve(ws, c.Path); err != nil {
			return nil, err
		}
		// An added file may replace one the model has not seen.
		if err := t.mustHaveRead(targets[i].from, c.Path); err != nil {
			return nil, err
		}
		if c.NewPath != "" {
			if targets[i].to, err = t.resolve(ws, c.NewPath); err != nil {
				return nil, err
			}
			if err := t.mustHaveRead(targets[i].to, c.NewPath); err != nil {
				return nil, err
			}
		}
	}
	return targets, nil
}

// stageChanges writes every new content beside its target (staged[i]
// names it): a failure there (disk full, permissions) leaves every file as
// it was. Only renames and removals remain after that.
func stageChanges(changes []Change, targets []patchTarget, staged []string) error {
	for i, c := range changes {
		if c.Kind == OpDelete {
			continue
		}
		dest := targets[i].from
		if targets[i].to != "" {
			dest = targets[i].to
		}
		var err error
		if staged[i], err = stageFile(dest, targets[i].from, c.Content); err != nil {
			return err
		}
	}
	return nil
}

// commitChanges puts the staged contents in place, moves and removes
// files, and lists what changed as codex's apply_patch does.
func commitChanges(changes []Change, targets []patchTarget, staged []string) (string, error) {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for i, c := range changes {
		tg := targets[i]
		switch {
		case c.Kind == OpDelete:
			if err := os.Remove(tg.from); err != nil {
				return "", fmt.Errorf("delete %s: %w", c.Path, err)
			}
			fmt.Fprintf(&b, "D %s\n", c.Path)
		case c.Kind == OpAdd:
			_, statErr := os.Stat(tg.from)
			if err := commitStaged(&staged[i], tg.from); err != nil {
				return "", err
			}
			if statErr == nil {
				fmt.Fprintf(&b, "A %s (replaced the existing file)\n", c.Path)
			} else {
				fmt.Fprintf(&b, "A %s\n", c.Path)
			}
		case tg.to != "":
			if err := commitStaged(&staged[i], tg.to); err != nil {
				return "", err
			}
			if tg.to != tg.from {
				if err := os.Remove(tg.from); err != nil {
					return "", fmt.Errorf("move %s: %w", c.Path, err)
				}
			}
			fmt.Fprintf(&b, "M %s -> %s\n", c.Path, c.NewPath)
		default:
			if err := commitStaged(&staged[i], tg.from); err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "M %s\n", c.Path)
		}
	}
	return b.String(), nil
}
