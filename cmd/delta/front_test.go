package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/cli"
	"github.com/google/go-cmp/cmp"
)

// TestDispatch checks which binary and argv each command line maps to,
// with a fake exec and fake delta-* executables on PATH.
func TestDispatch(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"delta-run", "delta-tool-expand", "delta-sessions", "delta-context", "delta-pty", "delta-plugin", "delta-cluster", "delta-foo"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "-m", "task"}, []string{"delta-run", "run", "-m", "task"}},
		{[]string{"continue", "--run-id", "X"}, []string{"delta-run", "continue", "--run-id", "X"}},
		{[]string{"list-runs"}, []string{"delta-run", "list-runs"}},
		{[]string{"init", "a"}, []string{"delta-run", "init", "a"}},
		{[]string{"tool", "expand", "--check", "."}, []string{"delta-tool-expand", "--check", "."}},
		{[]string{"tool:expand", "x"}, []string{"delta-tool-expand", "x"}},
		{[]string{"sessions", "start"}, []string{"delta-sessions", "start"}},
		{[]string{"context"}, []string{"delta-context"}},
		{[]string{"pty", "--help"}, []string{"delta-pty", "--help"}},
		{[]string{"plugin", "list"}, []string{"delta-plugin", "list"}},
		{[]string{"cluster", "serve", "--name", "n1"}, []string{"delta-cluster", "serve", "--name", "n1"}},
		{[]string{"worker", "--queue", "q"}, []string{"delta-cluster", "worker", "--queue", "q"}},
		{[]string{"batch", "submit", "t.jsonl"}, []string{"delta-cluster", "batch", "submit", "t.jsonl"}},
		{[]string{"pull", "R", "--cluster", "nats://h:4222"}, []string{"delta-cluster", "pull", "R", "--cluster", "nats://h:4222"}},
		{[]string{"help", "worker"}, []string{"delta-cluster", "worker", "--help"}},
		{[]string{"foo", "--", "-x"}, []string{"delta-foo", "--", "-x"}},
		{[]string{"help", "foo"}, []string{"delta-foo", "--help"}},
	}
	for _, tc := range tests {
		var got []string
		fake := func(path string, argv []string, env []string) error {
			if filepath.Dir(path) != dir {
				t.Errorf("exec path %q not in %q", path, dir)
			}
			got = argv
			return nil
		}
		var stderr bytes.Buffer
		run(tc.args, cli.Stdio{Out: &bytes.Buffer{}, Err: &stderr}, fake)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("run(%q) argv (-want +got):\n%s%s", tc.args, diff, stderr.String())
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stderr bytes.Buffer
	code := run([]string{"nope"}, cli.Stdio{Out: &bytes.Buffer{}, Err: &stderr}, func(string, []string, []string) error {
		t.Fatal("exec called for an unknown command")
		return nil
	})
	if code != 2 {
		t.Errorf("run(nope) = %d, want 2; stderr:\n%s", code, &stderr)
	}
}
