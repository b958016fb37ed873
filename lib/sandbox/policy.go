// Package sandbox confines the commands Delta runs for a model: which
// files they may write and which TCP ports they may connect to.
//
// A Policy (agent.yaml's sandbox:, --sandbox, DELTA_SANDBOX) has one of
// Codex's three modes. read-only lets a tool read anywhere and write
// nowhere; workspace-write lets it write only inside the workspace, the
// system temp directory, the run's own directory and the paths the policy
// lists; danger-full-access is no sandbox at all. Network is off in the
// first two unless the policy allows it (all of it, or a list of
// host:port).
//
// The policy is resolved once per run into Rules (absolute paths, ports)
// and applied by the process that execs the tool, with the kernel's own
// mechanism, Landlock (Linux 5.13 and later; TCP rules from 6.7): that
// process restricts itself and then execs the command, and Landlock is
// inherited over exec and fork, so everything the tool starts (shells,
// sessions, ptys, servers) is confined alike. No container runtime, no
// privileges. A kernel that cannot enforce the rules makes the command
// fail to start with an error saying so, never run unconfined.
//
// Limits worth knowing: Landlock filters TCP by port, so a host:port entry
// allows that port on every host; UDP (DNS included) is not filtered; and
// reading is never restricted, so secrets readable by the user are
// readable by the tools.
package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mode is one of the three sandbox modes.
type Mode string

// The modes, as agent.yaml, --sandbox and DELTA_SANDBOX spell them.
const (
	ReadOnly         Mode = "read-only"
	WorkspaceWrite   Mode = "workspace-write"
	DangerFullAccess Mode = "danger-full-access"
)

// Modes lists the modes, strictest first.
var Modes = []Mode{ReadOnly, WorkspaceWrite, DangerFullAccess}

// ParseMode checks s names a mode.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use read-only, workspace-write or danger-full-access", s)
}

// Policy is a run's sandbox as configured: the mode, the extra writable
// paths and the network allowed. The zero Policy is danger-full-access.
type Policy struct {
	Mode Mode `json:"mode"`
	// Writable are paths writable in workspace-write besides the
	// workspace, the temp directory and the run's directory; relative
	// ones are inside the workspace, "~/" is the home directory.
	Writable []string `json:"writable,omitempty"`
	// Network allows every TCP connection; Allow only those listed.
	Network bool     `json:"network,omitempty"`
	Allow   []string `json:"allow,omitempty"` // host:port
	// Escalate false: a call the sandbox refused is never offered to run
	// outside it (nil: it is, when a human can answer).
	Escalate *bool `json:"escalate,omitempty"`
}

// Escalates reports whether a call the sandbox refused may be run once
// outside it with a human's approval (the on-failure escalation).
func (p Policy) Escalates() bool { return p.Confined() && (p.Escalate == nil || *p.Escalate) }

// Confined reports whether p restricts anything.
func (p Policy) Confined() bool {
	return p.Mode == ReadOnly || p.Mode == WorkspaceWrite
}

// Check validates p: a known mode and host:port entries with a port.
func (p Policy) Check() error {
	if p.Mode != "" {
		if _, err := ParseMode(string(p.Mode)); err != nil {
			return err
		}
	}
	_, err := ports(p.Allow)
	return err
}

// ports parses host:port entries into the ports they allow.
func ports(allow []string) ([]uint16, error) {
	var out []uint16
	for _, hp := range allow {
		i := strings.LastIndexByte(hp, ':')
		n, err := strconv.ParseUint(hp[i+1:], 10, 16)
		if i < 0 || err != nil || n == 0 {
			return nil, fmt.Errorf("sandbox network entry %q is not host:port (for example localhost:8080 or registry.npmjs.org:443)", hp)
		}
		out = append(out, uint16(n))
	}
	return out, nil
}

// Rules are a Policy resolved for one run: what the process that execs a
// tool enforces. They travel to that process as JSON.
type Rules struct {
	Mode Mode `json:"mode"`
	// Write are the absolute paths (directories or files) writable.
	Write []string `json:"write,omitempty"`
	// Network allows every TCP connection; otherwise only to Ports.
	Network bool     `json:"network,omitempty"`
	Ports   []uint16 `json:"ports,omitempty"`
	// Netns: the network is confined by a new network namespace (no
	// network at all) instead of Landlock, whose TCP rules this kernel
	// lacks (Settle).
	Netns bool `json:"netns,omitempty"`
}

// devices are always writable: a command's 2>/dev/null, its terminal and
// the pseudo-terminals delta-pty sessions open.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Rules resolves p for a run whose tools work in workspace and whose
// records are in runDir ("" for none); nil for danger-full-access.
func (p Policy) Rules(workspace, runDir string) (*Rules, error) {
	if !p.Confined() {
		return nil, nil
	}
	ps, err := ports(p.Allow)
	if err != nil {
		return nil, err
	}
	r := &Rules{Mode: p.Mode, Network: p.Network, Ports: ps, Write: append([]string(nil), devices...)}
	if runDir != "" {
		// The run's own records: a plugin (the coding plugin's shell)
		// writes a call's full output there, whatever the mode.
		r.Write = append(r.Write, absClean(runDir))
	}
	if p.Mode == ReadOnly {
		return r, nil
	}
	r.Write = append(r.Write, absClean(workspace), absClean(os.TempDir()))
	for _, w := range p.Writable {
		r.Write = append(r.Write, resolve(w, workspace))
	}
	return r, nil
}

// resolve makes a writable entry absolute: "~/" is the home directory,
// a relative path is inside the workspace.
func resolve(path, workspace string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok || path == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, path)
	}
	return absClean(path)
}

// absClean is path absolute, with symlinks resolved when it exists
// (Landlock rules hold for the file a path names, wherever it is reached
// from).
func absClean(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}
