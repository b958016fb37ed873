// Package man_test checks that the committed man pages match what the
// binaries print with --man, so a changed flag or help text cannot leave a
// stale page behind.
package man_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	clitest.Cleanup()
	os.Exit(code)
}

// TestPagesUpToDate compares every man/*.1 with its binary's --man output,
// ignoring the date on the .TH line.
func TestPagesUpToDate(t *testing.T) {
	pages, err := filepath.Glob("*.1")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no man/*.1 pages found")
	}
	bin := clitest.BinDir(t)
	for _, page := range pages {
		name := strings.TrimSuffix(page, ".1")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			got, err := exec.Command(filepath.Join(bin, name), "--man").Output()
			if err != nil {
				t.Fatalf("%s --man: %v (does cmd/%s build?)", name, err, name)
			}
			if withoutDate(string(got)) != withoutDate(string(want)) {
				t.Errorf("man/%s is stale: run make man and commit it", page)
			}
			// whatis and apropos show the NAME line's summary: every page
			// has one (the CLI's BeforeReset sets it).
			if _, summary, _ := strings.Cut(string(got), "\n.SH NAME\n"+name+" - "); strings.TrimSpace(strings.SplitN(summary, "\n", 2)[0]) == "" {
				t.Errorf("%s --man has no one-line summary on its NAME line", name)
			}
		})
	}
}

// withoutDate blanks the date field (the third) of the .TH line.
func withoutDate(page string) string {
	lines := strings.SplitN(page, "\n", 2)
	if f := strings.Fields(lines[0]); len(f) > 3 && f[0] == ".TH" {
		f[3] = `""`
		lines[0] = strings.Join(f, " ")
	}
	return strings.Join(lines, "\n")
}
