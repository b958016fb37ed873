package execute

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/execute/guard"
	"github.com/deltakit/delta/lib/sys"
)

// A guard process serves every command of this process (package guard):
// it is started with the first command and lives until we exit, when its
// socket closes and it kills whatever it still runs.

// guardConn is our end of a running guard.
type guardConn struct {
	exe  string
	cmd  *exec.Cmd
	conn *net.UnixConn

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan guard.Reply
	err     error // set when the guard is gone; no request can succeed after
}

var (
	guardsMu sync.Mutex
	// guards holds the running guard of each guard executable (one in
	// practice; tests switch between the dedicated binary and ourselves).
	guards = map[string]*guardConn{}
)

// guardFor returns a running guard, starting one when there is none (or
// the last one died). When the dedicated guard binary cannot be started
// (uninstalled since we found it, say), the current executable serves as
// the guard instead.
func guardFor() (*guardConn, error) {
	guardsMu.Lock()
	defer guardsMu.Unlock()
	exe := guardPath()
	if g := guards[exe]; g != nil && g.alive() {
		return g, nil
	}
	g, err := startGuardConn(exe)
	if errors.Is(err, errGuardStart) && exe != selfExe {
		g, err = startGuardConn(selfExe)
	}
	if err != nil {
		return nil, err
	}
	guards[exe] = g
	return g, nil
}

// errGuardStart: the guard executable could not be started at all.
var errGuardStart = errors.New("start guard")

// startGuardConn starts the guard program exe and waits for its hello.
func startGuardConn(exe string) (*guardConn, error) {
	fds, err := sys.PacketPair(guard.MaxPacket)
	if err != nil {
		return nil, fmt.Errorf("guard socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "guard"), os.NewFile(uintptr(fds[1]), "guard")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("guard socket: %w", err)
	}
	conn := fc.(*net.UnixConn)
	cmd := &exec.Cmd{
		Path:       exe,
		Args:       []string{guard.Name, guard.Arg},
		Env:        append(guard.WithoutEnv(os.Environ()), guard.Env+"=1"),
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{theirs},
		// Its own session: a Ctrl-C meant for us does not reach the guard
		// or, through it, the commands (we stop them ourselves), and a
		// guard above us that empties our session when we die (a worker's
		// guard over its delta-run) does not kill this one before it has
		// ended our commands; it ends by itself at its socket's EOF.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w %s: %v", errGuardStart, exe, err)
	}
	theirs.Close()
	// The guard is reaped by a goroutine of its own: it lives as long as
	// we do, or until it fails.
	go cmd.Wait()
	var hello guard.Reply
	buf := make([]byte, 4096)
	n, _, _, _, err := conn.ReadMsgUnix(buf, nil)
	if err == nil {
		err = json.Unmarshal(buf[:n], &hello)
	}
	if err != nil || hello.Hello != guard.Arg {
		conn.Close()
		cmd.Process.Kill()
		return nil, fmt.Errorf("guard %s did not answer as a guard of protocol %s: %w (is it a delta-exec-guard from another Delta version?)", exe, guard.Arg, ErrGuard)
	}
	g := &guardConn{exe: exe, cmd: cmd, conn: conn, pending: map[uint64]chan guard.Reply{}}
	go g.readReplies()
	return g, nil
}

func (g *guardConn) alive() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err == nil
}

// readReplies hands each reply to the command waiting for it; when the
// guard is gone, every waiting command learns it.
func (g *guardConn) readReplies() {
	buf := make([]byte, 4096)
	for {
		n, _, _, _, err := g.conn.ReadMsgUnix(buf, nil)
		if err == nil && n == 0 {
			err = errors.New("connection closed")
		}
		if err != nil {
			g.fail(fmt.Errorf("guard %s ended: %v: %w", g.exe, err, ErrGuard))
			return
		}
		var r guard.Reply
		if json.Unmarshal(buf[:n], &r) != nil {
			continue
		}
		g.mu.Lock()
		ch := g.pending[r.ID]
		if r.Done {
			delete(g.pending, r.ID)
		}
		g.mu.Unlock()
		if ch != nil {
			ch <- r // buffered for both replies
		}
	}
}

// fail records that the guard is gone and closes every waiting channel.
func (g *guardConn) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.err = err
	for id, ch := range g.pending {
		close(ch)
		delete(g.pending, id)
	}
	g.conn.Close()
}

// guardedCmd is one command running under the guard.
type guardedCmd struct {
	g       *guardConn
	id      uint64
	replies chan guard.Reply
	pid     int // once started
}

// start asks the guard to run c with stdin, stdout and stderr.
func (g *guardConn) start(c guard.Command, stdin, stdout, stderr *os.File) (*guardedCmd, error) {
	g.mu.Lock()
	if g.err != nil {
		g.mu.Unlock()
		return nil, g.err
	}
	g.nextID++
	gc := &guardedCmd{g: g, id: g.nextID, replies: make(chan guard.Reply, 2)}
	g.pending[gc.id] = gc.replies
	g.mu.Unlock()

	fds := []int{int(stdin.Fd()), int(stdout.Fd()), int(stderr.Fd())}
	req, _ := json.Marshal(guard.Request{Op: guard.OpStart, ID: gc.id, Command: &c})
	var cmdW *os.File
	if len(req) > guard.MaxPacket {
		// Too large for a packet: the command travels through a pipe,
		// which the guard reads at once.
		cmdR, w, err := os.Pipe()
		if err != nil {
			g.forget(gc.id)
			return nil, fmt.Errorf("command pipe: %w", err)
		}
		defer cmdR.Close()
		cmdW = w
		fds = append(fds, int(cmdR.Fd()))
		req, _ = json.Marshal(guard.Request{Op: guard.OpStart, ID: gc.id})
	}
	if _, _, err := g.conn.WriteMsgUnix(req, sys.UnixRights(fds...), nil); err != nil {
		if cmdW != nil {
			cmdW.Close()
		}
		g.forget(gc.id)
		return nil, fmt.Errorf("ask guard to start %s: %w", c.Path, err)
	}
	if cmdW != nil {
		go func() {
			json.NewEncoder(cmdW).Encode(c)
			cmdW.Close()
		}()
	}
	return gc, nil
}

func (g *guardConn) forget(id uint64) {
	g.mu.Lock()
	delete(g.pending, id)
	g.mu.Unlock()
}

// signal asks the guard to send SIGTERM (guard.OpTerm) or SIGKILL
// (guard.OpKill) to the command's processes.
func (gc *guardedCmd) signal(op string) {
	req, _ := json.Marshal(guard.Request{Op: op, ID: gc.id})
	gc.g.conn.WriteMsgUnix(req, nil, nil)
}

// started waits for the guard to start the command: its pid, or the
// status of a command that could not be started.
func (gc *guardedCmd) started() (done *guard.Status, err error) {
	r, ok := <-gc.replies
	if !ok {
		return nil, gc.g.gone()
	}
	if r.Done {
		return &r.Status, nil
	}
	gc.pid = r.Pid
	return nil, nil
}

// wait waits for the command's end.
func (gc *guardedCmd) wait() (guard.Status, error) {
	r, ok := <-gc.replies
	if !ok {
		return guard.Status{}, gc.g.gone()
	}
	return r.Status, nil
}

func (g *guardConn) gone() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// killLastResort kills the command's process group ourselves, for a guard
// that stopped answering.
func (gc *guardedCmd) killLastResort() {
	if gc.pid > 0 {
		syscall.Kill(-gc.pid, syscall.SIGKILL)
	}
}

// within waits d for done, reporting whether it came.
func within(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
