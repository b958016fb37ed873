package execute

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/deltakit/delta/lib/execute/guard"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/sys"
)

// How Run starts the guard (package guard).
//
// The fast way is the dedicated delta-exec-guard binary: it links only the
// guard, so it starts as fast as any small Go program. It is looked for once per
// process, next to the running executable first (the binaries of one
// install belong together) and then on PATH.
//
// When it is not there (a go test binary, a lone copied binary), the
// current executable is re-executed in guard mode instead: this package's
// init function notices the hidden argument before any main runs. That
// always works, but pays the start-up of the whole binary, about ten
// milliseconds for one full of SDKs.

func init() {
	if guard.Invoked(os.Args) {
		// The process is a guard, not a Delta command: it must never run
		// the program's main. This is the one exit outside a main.
		os.Exit(guard.Main(os.Args))
	}
	if sandbox.Invoked(os.Args) {
		// A sandboxed command on its way (Sandboxed): this process
		// confines itself and becomes the command.
		os.Exit(sandbox.ExecMain(os.Args))
	}
}

// selfExe names our own binary (sys.SelfExe: on Linux even when the file
// on disk was replaced or deleted since we started).
var selfExe = sys.SelfExe()

// guardBinary is the dedicated guard's path, or "" when there is none.
var guardBinary = sync.OnceValue(findGuardBinary)

// guardPath is the program Run starts as the guard.
func guardPath() string {
	if p := guardBinary(); p != "" {
		return p
	}
	return selfExe
}

// findGuardBinary looks for delta-exec-guard next to the running
// executable, then on PATH.
func findGuardBinary() string {
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		p := filepath.Join(filepath.Dir(self), guard.Name)
		if isExecutable(p) == nil {
			return p
		}
	}
	if p, err := exec.LookPath(guard.Name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}
