package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// A pipe nobody writes to (its write end held open) must not hang the
// run: after the wait it goes on with -m's message and says why.
func TestPipedInputSilentPipe(t *testing.T) {
	t.Setenv("DELTA_STDIN_WAIT", "1ms")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var stderr bytes.Buffer
	got, err := withPipedInput("task", "task", false, r, &stderr)
	if err != nil || got != "task" {
		t.Fatalf("withPipedInput(silent pipe) = %q, %v, want %q", got, err, "task")
	}
	if !strings.Contains(stderr.String(), "nothing in it") {
		t.Errorf("stderr = %q, want a note about the silent pipe", stderr.String())
	}
}

// A pipe whose writer has written and closed is read at once, however
// short the wait.
func TestPipedInputWrittenPipe(t *testing.T) {
	t.Setenv("DELTA_STDIN_WAIT", "0s")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("piped text\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cases := []struct {
		name, msg, flag string
		interactive     bool
		want            string
	}{
		{"-i leaves stdin to ask_human", "task", "task", true, "task"},
		{"-m - is stdin already", "whole", "-", false, "whole"},
		{"appended", "task", "task", false, "task\n\npiped text"},
	}
	for _, c := range cases {
		got, err := withPipedInput(c.msg, c.flag, c.interactive, r, &bytes.Buffer{})
		if err != nil || got != c.want {
			t.Errorf("%s: withPipedInput = %q, %v, want %q", c.name, got, err, c.want)
		}
	}
}
