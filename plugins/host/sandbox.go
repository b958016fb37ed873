package host

import (
	"fmt"
	"os"
	"os/exec"

	plugin "github.com/hashicorp/go-plugin"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/sandbox"
)

// confine makes cmd start the plugin under the client's sandbox: the
// guard binary confines itself and execs the plugin (execute.Sandboxed),
// so the plugin and everything it starts — the coding plugin's write_file
// and shell included — write and connect only where the run allows.
//
// The plugin makes its go-plugin socket in a directory of its own,
// writable under the rules whatever the mode (read-only lets it write
// nowhere else); the directory goes when the process stops.
func (c *Client) confine(cmd *exec.Cmd) error {
	if c.sandbox == nil {
		return nil
	}
	dir, err := os.MkdirTemp(socketParent(), "dp")
	if err != nil {
		return fmt.Errorf("plugin %q: socket directory: %w", c.bin.Name, err)
	}
	c.removeSockDir()
	c.sockDir = dir
	rules := *c.sandbox
	rules.Write = append(rules.Write[:len(rules.Write):len(rules.Write)], dir)
	path, argv, err := execute.Sandboxed(rules, cmd.Path, cmd.Args)
	if err != nil {
		return fmt.Errorf("plugin %q: %w", c.bin.Name, err)
	}
	cmd.Path, cmd.Args = path, argv
	cmd.Env = append(cmd.Env, plugin.EnvUnixSocketDir+"="+dir)
	return nil
}

// socketParent is where a sandboxed plugin's socket directory is made:
// the temp directory, unless its path is so long that a socket in it
// would pass the 108 bytes a Unix socket's path may have (go-plugin adds
// "/plugin" and ten digits), then /tmp.
func socketParent() string {
	if d := os.TempDir(); len(d) <= 70 {
		return d
	}
	return "/tmp"
}

// removeSockDir removes the sandboxed plugin's socket directory, if any.
func (c *Client) removeSockDir() {
	if c.sockDir != "" {
		os.RemoveAll(c.sockDir)
		c.sockDir = ""
	}
}

// refusalNoted is a failed call's observation, with a note when the
// failure looks like the sandbox r's refusal (as command tools get it);
// refused reports that it did, which offers the call to run outside
// (Toolbox.Unsandboxed).
func refusalNoted(r *sandbox.Rules, text string) (_ string, refused bool) {
	if r == nil || !sandbox.Refused(text) {
		return text, false
	}
	return text + "\n" + r.Note(), true
}

// unconfined is a client of the same plugin, configured alike, whose
// process runs outside the sandbox: for one escalated call.
func (c *Client) unconfined() *Client {
	return &Client{bin: c.bin, config: c.config, stderr: c.stderr, verbose: c.verbose, env: c.env}
}
