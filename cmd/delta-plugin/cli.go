package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/plugins/install"
	"github.com/deltakit/delta/plugins/lock"
)

// CLI is delta-plugin's grammar.
type CLI struct {
	cli.ManFlag

	Dir string `name:"dir" env:"DELTA_PLUGIN_DIR" placeholder:"DIR" help:"Plugin directory (default ~/.delta/plugins)."`

	Install InstallCmd `cmd:"" help:"Install a plugin from a binary path or a Go module@version."`
	List    ListCmd    `cmd:"" help:"List installed plugins with their tools and checksum status."`
	Remove  RemoveCmd  `cmd:"" help:"Remove an installed plugin."`
	Verify  VerifyCmd  `cmd:"" help:"Check every installed binary against its locked sha256."`
	Tools   ToolsCmd   `cmd:"" hidden:"" help:"List the tools of the plugins named on stdin, as JSON (used by delta-tool-expand)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-plugin manages Delta plugins: hashicorp/go-plugin binaries (gRPC) that add tools to an agent, or answer its lifecycle hooks. "delta plugin ARGS" runs it.

Plugins live in the plugin directory ($DELTA_PLUGIN_DIR, else ~/.delta/plugins) as delta-plugin-NAME, and plugins.lock.json there records for each its version, source, tools and sha256. delta-run loads a plugin only when its binary still has the locked checksum; an agent.yaml entry with an explicit path must match the lock too, and an unlocked delta-plugin-NAME on PATH loads only with allow_path: true.

Agents name plugins in agent.yaml's plugins: list, each with an optional subset of its tools and a config the plugin checks. For example plugins: [{name: coding, tools: [read_file, apply_patch], config: {allow_outside_workspace: false}}] gives the agent two of the coding plugin's tools; delta-agent(5), section PLUGINS, has the block-style form and every key. Plugin output on stderr reaches delta-run's stderr once per line, prefixed "[plugin NAME]".

Exit codes: 0 success; 1 failure (a plugin that does not start, a checksum MISMATCH or missing binary found by verify); 2 usage error.`
}

// installed lists the plugins of the plugin directory.
func (c *CLI) installed() ([]install.Status, error) {
	dir, err := c.dir()
	if err != nil {
		return nil, err
	}
	return install.List(dir)
}

// dir is the plugin directory.
func (c *CLI) dir() (string, error) {
	if c.Dir != "" {
		return c.Dir, nil
	}
	return lock.Dir()
}

// InstallCmd is `delta-plugin install`.
type InstallCmd struct {
	Source string `arg:"" placeholder:"PATH|MODULE@VERSION" help:"A plugin binary, or a Go module path@version built with go install."`
	Name   string `name:"name" placeholder:"NAME" help:"Plugin name (default: the binary name without delta-plugin-)."`
}

// Run installs the plugin and prints what was locked.
func (c *InstallCmd) Run(root *CLI, std cli.Stdio) error {
	dir, err := root.dir()
	if err != nil {
		return err
	}
	e, err := install.Install(context.Background(), c.Source, install.Options{Dir: dir, Name: c.Name, Stderr: std.Err})
	if err != nil {
		return cli.WithCode(runs.ExitFailed, "", err)
	}
	fmt.Fprintf(std.Out, "installed %s %s (%s)\n  tools: %s\n  sha256: %s\n", e.Name, e.Version, e.Path, toolList(e.Tools), e.SHA256)
	return nil
}

// ListCmd is `delta-plugin list`.
type ListCmd struct {
	Format string `name:"format" enum:"text,json" default:"text" help:"Output format: text or json."`
}

// Run prints the installed plugins.
func (c *ListCmd) Run(root *CLI, std cli.Stdio) error {
	list, err := root.installed()
	if err != nil {
		return err
	}
	if c.Format == "json" {
		enc := json.NewEncoder(std.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(std.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSOURCE\tTOOLS\tCHECKSUM")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.Version, p.Source, toolList(p.Tools), p.Status)
	}
	return tw.Flush()
}

// RemoveCmd is `delta-plugin remove`.
type RemoveCmd struct {
	Name string `arg:"" help:"Plugin to remove."`
}

// Run removes the plugin.
func (c *RemoveCmd) Run(root *CLI, std cli.Stdio) error {
	dir, err := root.dir()
	if err != nil {
		return err
	}
	if err := install.Remove(dir, c.Name); err != nil {
		return cli.WithCode(runs.ExitFailed, "see installed plugins with `delta plugin list`", err)
	}
	fmt.Fprintf(std.Out, "removed %s\n", c.Name)
	return nil
}

// VerifyCmd is `delta-plugin verify`.
type VerifyCmd struct {
}

// Run checks every plugin and fails on any mismatch or missing binary.
func (c *VerifyCmd) Run(root *CLI, std cli.Stdio) error {
	list, err := root.installed()
	if err != nil {
		return err
	}
	var bad []string
	for _, p := range list {
		fmt.Fprintf(std.Out, "%s\t%s\n", p.Name, p.Status)
		if p.Status != lock.StatusOK {
			bad = append(bad, p.Name)
		}
	}
	if len(bad) > 0 {
		return cli.Errorf(runs.ExitFailed, "reinstall a plugin whose change is yours with `delta plugin install`; otherwise treat the binary as tampered",
			"checksum verification failed for %s", strings.Join(bad, ", "))
	}
	return nil
}

func toolList(tools []string) string {
	if len(tools) == 0 {
		return "-"
	}
	return strings.Join(tools, ",")
}

// BeforeReset gives the man page its NAME line (kong takes the one-line
// summary from the application's Help, which cli.Run leaves empty).
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "install, list, remove and verify Delta plugins"
	return nil
}
