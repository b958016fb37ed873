package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/runs"
)

// workspace_sync: git. A snapshot is the workspace's change against the
// task's base commit, as one binary patch: tracked files changed or
// deleted and untracked files created (what .gitignore ignores is not
// carried, nor the run directories under .delta/). It is built in an
// index of its own, kept in the run directory, so the workspace's own
// index and HEAD are never touched and each snapshot rehashes only the
// files whose stat changed since the last one.

// snapshotIndex is the private index file in runDir.
const snapshotIndex = "sync.index"

// gitSnapshot returns the patch from base to the workspace ws as it is now.
func gitSnapshot(ctx context.Context, ws, runDir, base string) ([]byte, error) {
	env := append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(runDir, snapshotIndex))
	if _, err := os.Stat(filepath.Join(runDir, snapshotIndex)); err != nil {
		if _, err := gitOut(ctx, ws, env, "read-tree", base); err != nil {
			return nil, err
		}
	}
	if _, err := gitOut(ctx, ws, env, "add", "--all", "--", ".", ":(exclude,top)"+runs.ControlDir); err != nil {
		return nil, err
	}
	return gitOut(ctx, ws, env, "diff", "--cached", "--binary", "--full-index", "--no-color", "--no-ext-diff", "--no-renames", base, "--")
}

// gitRestore applies a snapshot to ws, a fresh checkout of its base.
func gitRestore(ctx context.Context, ws string, patch []byte) error {
	if len(patch) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, "git", "apply", "--binary", "--whitespace=nowarn", "-")
	cmd.Dir, cmd.Stdin = ws, bytes.NewReader(patch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("apply the workspace snapshot: git apply: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// gitHead is the commit ws has checked out.
func gitHead(ctx context.Context, ws string) (string, error) {
	out, err := gitOut(ctx, ws, nil, "rev-parse", "--verify", "HEAD^{commit}")
	return strings.TrimSpace(string(out)), err
}

// gitOut runs git in dir and returns its stdout, or an error with what it said.
func gitOut(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
