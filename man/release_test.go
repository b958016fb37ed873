package man_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReleaseShipsEverything holds .goreleaser.yaml to the tree: every
// command under cmd/ and every first-party plugin is built for the
// archives and linked by the Homebrew cask, and every man page is in the
// cask, so a new command cannot be left out of a release unnoticed.
func TestReleaseShipsEverything(t *testing.T) {
	data, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			ID, Main, Binary string
		}
		HomebrewCasks []struct {
			Binaries []string
			Manpages []string
		} `yaml:"homebrew_casks"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.HomebrewCasks) != 1 {
		t.Fatalf(".goreleaser.yaml has %d homebrew_casks, want 1", len(cfg.HomebrewCasks))
	}
	built := map[string]string{}
	for _, b := range cfg.Builds {
		built[b.Binary] = b.Main
	}
	linked := set(cfg.HomebrewCasks[0].Binaries)
	pages := set(cfg.HomebrewCasks[0].Manpages)

	mains, _ := filepath.Glob("../cmd/*/main.go")
	plugins, _ := filepath.Glob("../plugins/*/delta-plugin-*/main.go")
	if len(mains) == 0 || len(plugins) == 0 {
		t.Fatalf("found %d commands and %d plugins; is the test run from man/?", len(mains), len(plugins))
	}
	for _, m := range append(mains, plugins...) {
		dir := filepath.Dir(m)
		name := filepath.Base(dir)
		want := "./" + strings.TrimPrefix(filepath.ToSlash(dir), "../")
		if got, ok := built[name]; !ok || got != want {
			t.Errorf(".goreleaser.yaml: no build of %s from %s (builds has %q)", name, want, got)
		}
		if !linked[name] {
			t.Errorf(".goreleaser.yaml: the cask's binaries lack %s", name)
		}
	}
	local, _ := filepath.Glob("*.[157]")
	for _, p := range local {
		want := "share/man/man" + p[len(p)-1:] + "/" + p
		if !pages[want] {
			t.Errorf(".goreleaser.yaml: the cask's manpages lack %s", want)
		}
	}
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
