package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	mangokong "github.com/alecthomas/mango-kong"
	"github.com/muesli/roff"
)

// ManFlag is embedded in every binary's CLI struct: `--man` prints the
// man page generated from the kong definitions (make man uses it), and
// `--version` prints the version.
type ManFlag struct {
	Man     manFlag          `hidden:"" help:"Print the man page and exit."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

type manFlag bool

// BeforeApply prints the man page as soon as kong sees --man.
func (manFlag) BeforeApply(app *kong.Kong) error {
	fmt.Fprint(app.Stdout, ManPage(app.Model, time.Now()))
	app.Exit(0)
	return nil
}

// version is set by the Makefile's build and install targets:
// -ldflags "-X github.com/deltakit/delta/lib/cli.version=TAG-OR-COMMIT (DATE)".
var version string

// Version is what the binary was built from: the version the Makefile
// stamped (a tag, or a commit with its date), else the module version
// (go install module@version), else the VCS revision Go recorded, else
// "(devel)".
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at, _, _ = strings.Cut(s.Value, "T")
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) >= 12 {
		return fmt.Sprintf("%s%s (%s)", rev[:12], dirty, at)
	}
	return "(devel)"
}

// ManPage renders the section-1 man page of app. mango-kong writes the
// one-line summary into the .TH header, where man(1) centres it on every
// page, and a generic synopsis; both are replaced here: the header names
// the Delta manual, and the synopsis lists each command's real usage.
func ManPage(app *kong.Application, now time.Time) string {
	defer hideFlags(app.Node)()
	page := mangokong.NewManPage(1, app).Build(roff.NewDocument())
	lines := strings.Split(page, "\n")
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, ".TH "):
			// No version in the header: the committed pages must not go
			// stale with every commit.
			lines[i] = fmt.Sprintf(`.TH %s 1 "%s" "Delta" "Delta Manual"`,
				strings.ToUpper(app.Name), now.Format("2006-01-02"))
		case strings.HasPrefix(line, `\fB`+app.Name+`\fP [\fIoptions`):
			lines[i] = synopsis(app)
		}
	}
	return strings.Join(lines, "\n")
}

// hideFlags removes the hidden flags from n and its commands, which
// mango-kong would document (it skips hidden commands only), and returns
// the function that puts them back. A hidden flag is for programs, such as
// delta chat's --front-end, not for the manual.
func hideFlags(n *kong.Node) (restore func()) {
	all := n.Flags
	visible := make([]*kong.Flag, 0, len(all))
	for _, f := range all {
		if !f.Hidden {
			visible = append(visible, f)
		}
	}
	n.Flags = visible
	var inner []func()
	for _, c := range n.Children {
		inner = append(inner, hideFlags(c))
	}
	return func() {
		for _, r := range inner {
			r()
		}
		n.Flags = all
	}
}

// synopsis is one line per runnable command: "name sub <arg> [flags]".
func synopsis(app *kong.Application) string {
	var out []string
	for _, n := range leaves(app.Node) {
		usage := strings.TrimSpace(strings.TrimPrefix(n.Summary(), app.Name))
		out = append(out, `\fB`+app.Name+`\fP `+roffEscape(usage))
	}
	return strings.Join(out, "\n.br\n")
}

// leaves returns the visible commands of n that run something: n itself
// when it has no visible children.
func leaves(n *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, c := range n.Children {
		if !c.Hidden {
			out = append(out, leaves(c)...)
		}
	}
	if len(out) == 0 {
		return []*kong.Node{n}
	}
	return out
}

func roffEscape(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}
