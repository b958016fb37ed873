package coding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeRG writes an executable standing in for ripgrep: it prints output and exits with code, so the parsing of rg's output is tested
// without ripgrep installed.
func fakeRG(t *testing.T, output string, code int) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rg")
	script := "#!/bin/sh\ncat '" + out + "'\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGrepRipgrepParsing(t *testing.T) {
	rg := fakeRG(t, "/w/a.go\x0012:x := 1\n/w/b.go\x003:y: 2\n/w/c.go\x001:z\n", 0)
	got, more, err := GrepRipgrep(context.Background(), rg, GrepOptions{Pattern: "x", Root: "/w", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{{Path: "/w/a.go", Line: 12, Text: "x := 1"}, {Path: "/w/b.go", Line: 3, Text: "y: 2"}}
	if diff := cmp.Diff(want, got); diff != "" || !more {
		t.Errorf("GrepRipgrep() mismatch (-want +got):\n%s more = %v", diff, more)
	}
	if got, _, err := GrepRipgrep(context.Background(), fakeRG(t, "", 1), GrepOptions{Pattern: "x", Root: "/w", MaxResults: 2}); err != nil || len(got) != 0 {
		t.Errorf("GrepRipgrep(no match) = %v, %v", got, err)
	}
	if _, _, err := GrepRipgrep(context.Background(), fakeRG(t, "", 2), GrepOptions{Pattern: "(", Root: "/w", MaxResults: 2}); !errors.Is(err, ErrPattern) {
		t.Errorf("GrepRipgrep(exit 2) error = %v, want ErrPattern", err)
	}
}

// TestGrepRipgrepSkipsControlDirs checks the arguments rg gets: the
// SkippedDirs excluded, the user's rg config ignored.
func TestGrepRipgrepSkipsControlDirs(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	rg := filepath.Join(dir, "rg")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + argsFile + "'\nexit 1\n"
	if err := os.WriteFile(rg, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GrepRipgrep(context.Background(), rg, GrepOptions{Pattern: "x", Root: "/w", MaxResults: 2}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, want := range [][]string{{"--no-config"}, {"--glob", "!.git/"}, {"--glob", "!.delta/"}, {"--glob", "!.sessions/"}, {"--", "/w"}} {
		if !containsRun(args, want) {
			t.Errorf("rg args %q lack %q", args, want)
		}
	}
}

// containsRun reports whether want occurs in s as consecutive elements.
func containsRun(s, want []string) bool {
	for i := 0; i+len(want) <= len(s); i++ {
		if slices.Equal(s[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
