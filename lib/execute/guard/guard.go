// Package guard is the small supervisor process that stands between Delta
// and every command it runs (see lib/execute, which starts it).
//
// Pdeathsig alone cannot keep a command's grandchildren from outliving a
// killed engine: it kills only the direct child, and it fires when the
// parent *thread* exits, which a Go runtime may do on its own. So commands
// run under a guard process, one per Delta process, started with the first
// command and serving all of them (a guard of its own per command cost a
// Go program's start-up, some milliseconds, on every tool call). The guard
//   - makes itself a child subreaper (PR_SET_CHILD_SUBREAPER, Linux), so
//     processes orphaned by a command are re-parented to it instead of to
//     init; macOS has no subreaper, so there the guard looks for a
//     command's processes among all processes, by session (see below);
//   - starts each command as the leader of a new session: the session id
//     names the command's processes, however they regroup, and the ones that
//     called setsid(2) themselves have detached on purpose (daemons, such as
//     a delta-sessions holder) and are never killed;
//   - reads requests on a socket from its caller: start a command, send it
//     SIGTERM, SIGKILL; end-of-file — which the kernel delivers when the
//     caller dies, even by SIGKILL — kills every command it runs;
//   - when a command exits, kills whatever it left behind in its session,
//     then reports the exit status.
//
// On macOS a process that double-forks away from its process group but
// stays in its session is still found (by its session id) and killed;
// what changes is that its orphans are reaped by launchd, not the guard,
// and that between listing an orphan and signalling it its pid could in
// principle be reused (on Linux the guard's own children cannot be reaped
// by anyone else, so that race does not exist). A process that calls
// setsid(2) leaves on purpose on both systems.
//
// The package is a leaf on purpose: it imports only the standard library,
// golang.org/x/sys and lib/sys (the OS layer, itself such a leaf), so the dedicated delta-exec-guard binary built from it
// is small and starts as fast as any small Go program.
package guard

import (
	"os"
	"strings"
)

// The protocol between a caller (lib/execute) and a guard. A guard process
// is started as
//
//	ARGV0 Arg
//
// with Env=1 in its environment and one end of a SOCK_SEQPACKET socket pair
// as descriptor SockFD. It first sends Reply{Hello: Arg}. Each request is
// one packet holding a Request; a start request carries the command's
// stdin, stdout and stderr as descriptors (SCM_RIGHTS) and the Command
// itself, or, when it would not fit in a packet (MaxPacket: argv and
// environment can be megabytes), a fourth descriptor: the read end of a
// pipe on which the caller writes the Command as JSON. The guard answers a
// start with Reply{ID, Pid}, and every command, started or not, with one
// Reply{ID, Done: true, Status}.
const (
	// Name is the dedicated guard binary, installed next to the other
	// delta binaries.
	Name = "delta-exec-guard"
	// Arg is the hidden first argument naming guard mode. It carries the
	// protocol version: bump it on any change to this protocol, so that a
	// stale delta-exec-guard refuses to run instead of misbehaving.
	Arg = "__delta_exec_guard_v2__"
	// ArgPrefix is what every version of Arg starts with.
	ArgPrefix = "__delta_exec_guard"
	// Env is set to "1" for a guard; the guard removes it from the
	// commands' environment.
	Env = "DELTA_EXEC_GUARD"
	// SockFD is the inherited descriptor of the guard's end of the socket.
	SockFD = 3
	// MaxPacket is the largest packet either side sends.
	MaxPacket = 32 << 10
	// MaxFDs is the most descriptors a request carries.
	MaxFDs = 4
)

// Request operations.
const (
	OpStart = "start"
	OpTerm  = "term" // SIGTERM to the command's processes
	OpKill  = "kill" // SIGKILL to the command's processes
)

// Request is one packet from the caller.
type Request struct {
	Op      string   `json:"op"`
	ID      uint64   `json:"id"`
	Command *Command `json:"command,omitempty"` // start: nil when it comes through a pipe
}

// Command is what a start request runs: Path with Argv, in Dir, with Env
// as its whole environment.
type Command struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// Reply is one packet from the guard.
type Reply struct {
	ID    uint64 `json:"id,omitempty"`
	Hello string `json:"hello,omitempty"` // the first packet: the guard's Arg
	Pid   int    `json:"pid,omitempty"`   // the command started: its pid, group and session id
	Done  bool   `json:"done,omitempty"`  // the command ended (or never started): Status says how
	Status
}

// Status is how a command ended: its exit code or the signal that killed
// it, or why it could not be started.
type Status struct {
	Code   int    `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Invoked reports whether args (a process's os.Args) and the environment
// ask this process to be a guard.
func Invoked(args []string) bool {
	return len(args) == 2 && args[1] == Arg && os.Getenv(Env) == "1"
}

// WithoutEnv returns env without the guard marker, so that the command (and
// any Delta binary it runs) never mistakes itself for a guard.
func WithoutEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, Env+"=") {
			out = append(out, kv)
		}
	}
	return out
}
