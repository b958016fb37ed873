package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/plugins/lock"
)

// commands are the binaries a Delta installation has; agents' tools call
// several of them by name, so each must be on PATH.
var commands = []string{"delta", "delta-run", "delta-context", "delta-tool-expand", "delta-sessions", "delta-pty", "delta-plugin", "delta-mcp", "delta-chat", "delta-workflow", "delta-sandbox"}

// checkBinaries finds every command on PATH and compares their versions
// with this one's.
func checkBinaries(r *report) {
	var missing, differ []string
	for _, name := range commands {
		path, err := exec.LookPath(name)
		if err != nil {
			missing = append(missing, name)
			continue
		}
		out, err := exec.Command(path, "--version").Output()
		if err != nil || !strings.Contains(string(out), cli.Version()) {
			differ = append(differ, fmt.Sprintf("%s (%s)", path, strings.TrimSpace(string(out))))
		}
	}
	switch {
	case len(missing) > 0:
		hint := "put the directory holding them on PATH"
		if self, err := os.Executable(); err == nil {
			hint = fmt.Sprintf("export PATH=%s:$PATH (or make install)", filepath.Dir(self))
		}
		r.fail("commands", "not on PATH: "+strings.Join(missing, ", "), hint)
	case len(differ) > 0:
		r.warn("commands", "not version "+cli.Version()+": "+strings.Join(differ, "; "), "reinstall them together (make install)")
	default:
		r.ok("commands", fmt.Sprintf("%d commands on PATH, version %s", len(commands), cli.Version()))
	}
}

// checkPlugins verifies every locked plugin's checksum.
func checkPlugins(r *report) {
	dir, err := lock.Dir()
	if err != nil {
		r.warn("plugins", err.Error(), "")
		return
	}
	f, err := lock.Read(dir)
	if err != nil {
		r.fail("plugins", err.Error(), "repair or remove the lock file; delta plugin install records plugins again")
		return
	}
	var bad []string
	for _, name := range f.Names() {
		if st := f.Plugins[name].Status(); st != lock.StatusOK {
			bad = append(bad, name+" "+st)
		}
	}
	switch {
	case len(bad) > 0:
		r.fail("plugins", "in "+dir+": "+strings.Join(bad, ", "), "reinstall a plugin whose change is yours (delta plugin install); otherwise treat it as tampered")
	case len(f.Plugins) == 0:
		r.ok("plugins", "none installed in "+dir)
	default:
		r.ok("plugins", fmt.Sprintf("%d installed in %s, checksums match", len(f.Plugins), dir))
	}
}
