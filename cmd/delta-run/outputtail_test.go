package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputTail: a tail shows whole lines as they come, holds a line
// without its end until it ends (or the call does), skips what a fast tool
// printed beyond maxOutputChunk from one read to the next (starting again
// at a line's start, the bytes counted), and loses nothing when the file
// is removed once it is open.
func TestOutputTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	tail := &outputTail{path: p}
	if text, skipped := tail.read(false); text != "" || skipped != 0 {
		t.Fatalf("read of a file not made yet = %q, %d", text, skipped)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	step := func(write string, final bool, want string, wantSkipped int64) {
		t.Helper()
		f.WriteString(write)
		if text, skipped := tail.read(final); text != want || skipped != wantSkipped {
			t.Errorf("after %.20q: read(%t) = %.40q, %d; want %.40q, %d", write, final, text, skipped, want, wantSkipped)
		}
	}
	step("one\ntw", false, "one\n", 0)
	step("o\n", false, "two\n", 0)
	big := strings.Repeat("x", 99) + "\n"
	flood := strings.Repeat(big, 1000) // 100000 bytes
	kept := maxOutputChunk - maxOutputChunk%len(big)
	step("partial"+flood, false, flood[len(flood)-kept:], int64(len("partial")+len(flood)-kept))
	os.Remove(p)
	step("last, no newline", false, "", 0)
	step("", true, "last, no newline", 0)
}
