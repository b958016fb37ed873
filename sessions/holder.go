package sessions

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
)

// DefaultIdleTimeout stops a holder nobody used for this long.
const DefaultIdleTimeout = 30 * time.Minute

// HolderInfo is holder.json: how to reach the holder of a session.
type HolderInfo struct {
	PID    int    `json:"pid"`
	Socket string `json:"socket"`
}

// holderRequest is one JSON line a client sends to the holder.
type holderRequest struct {
	Op        string `json:"op"` // "exec" or "end"
	Code      string `json:"code,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// holderReply is the holder's one-line JSON answer.
type holderReply struct {
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// SocketPath returns where the holder of the session at dir listens: in
// the session directory, or, when that path is too long for a unix socket,
// in the temporary directory under a name derived from dir.
func SocketPath(dir string) string {
	p := filepath.Join(dir, "holder.sock")
	if len(p) < 100 {
		return p
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(os.TempDir(), "delta-sess-"+hex.EncodeToString(sum[:8])+".sock")
}

// Hold is the holder process of an interpreter session (delta-sessions
// __hold DIR): it starts the interpreter, serves exec requests on the
// session's unix socket one at a time, and exits on end, on SIGTERM or
// after the idle timeout. It writes "ok" or the startup error to ready.
func Hold(dir string, ready io.WriteCloser) error {
	fail := StartupReporter(ready)
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return fail(fmt.Errorf("read session metadata: %w", err))
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return fail(fmt.Errorf("parse session metadata: %w", err))
	}
	ip, err := startInterp(m.Kind, m.Argv, m.WorkDir)
	if err != nil {
		return fail(err)
	}
	sock := SocketPath(dir)
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		ip.kill()
		return fail(fmt.Errorf("listen on %s: %w", sock, err))
	}
	info, _ := json.Marshal(HolderInfo{PID: os.Getpid(), Socket: sock})
	if err := atomicfile.WriteNoSync(filepath.Join(dir, "holder.json"), info, 0o600); err != nil {
		ln.Close()
		ip.kill()
		return fail(err)
	}
	_ = os.Remove(filepath.Join(dir, "holder.exit"))
	fmt.Fprintln(ready, "ok")
	ready.Close()

	h := &holder{dir: dir, meta: &m, ip: ip, ln: ln, idle: time.Duration(m.IdleTimeoutMS) * time.Millisecond}
	return h.serve()
}

type holder struct {
	dir  string
	meta *Metadata
	mu   sync.Mutex
	ip   *interp
	ln   net.Listener
	idle time.Duration
	last time.Time
	why  string
	down bool
}

func (h *holder) serve() error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	h.last = time.Now()
	stop := make(chan string, 1)
	go func() {
		s := <-sigs
		stop <- "stopped by " + s.String()
	}()
	if h.idle > 0 {
		go h.watchIdle(stop)
	}
	go WatchDir(h.dir, stop)
	go func() {
		why := <-stop
		h.mu.Lock() // after any exec in progress
		if h.why == "" {
			h.why = why
		}
		h.mu.Unlock()
		h.ln.Close()
	}()
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			break
		}
		if end := h.handle(conn); end {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.shutdown()
	return nil
}

// shutdown stops the interpreter and removes the holder's traces, leaving
// holder.exit saying why; the caller holds h.mu.
func (h *holder) shutdown() {
	if h.down {
		return
	}
	h.down = true
	h.ip.kill()
	h.ln.Close()
	_ = os.Remove(SocketPath(h.dir))
	_ = os.Remove(filepath.Join(h.dir, "holder.json"))
	_ = atomicfile.WriteNoSync(filepath.Join(h.dir, "holder.exit"), []byte(h.why+"\n"), 0o600)
}

func (h *holder) watchIdle(stop chan<- string) {
	for {
		h.mu.Lock()
		left := h.idle - time.Since(h.last)
		h.mu.Unlock()
		if left <= 0 {
			stop <- "idle for " + h.idle.String()
			return
		}
		time.Sleep(left)
	}
}

// handle answers one connection; it reports whether the session ended.
func (h *holder) handle(conn net.Conn) (end bool) {
	defer conn.Close()
	var req holderRequest
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return false
	}
	if err := json.Unmarshal(line, &req); err != nil {
		writeReply(conn, holderReply{Error: "bad request: " + err.Error()})
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = time.Now()
	switch req.Op {
	case "end":
		h.why = "ended"
		h.shutdown()
		writeReply(conn, holderReply{})
		return true
	case "exec":
		timeout := time.Duration(req.TimeoutMS) * time.Millisecond
		res, alive := h.ip.run(req.Code, timeout)
		if res.TimedOut {
			res.ExitCode = TimeoutExitCode
			res.Stderr += TimeoutMessage(timeout)
		}
		if !alive {
			ip, err := startInterp(h.meta.Kind, h.meta.Argv, h.meta.WorkDir)
			if err != nil {
				writeReply(conn, holderReply{Result: res, Error: "restart interpreter: " + err.Error()})
				return true
			}
			h.ip = ip
		}
		h.last = time.Now()
		writeReply(conn, holderReply{Result: res})
		return false
	default:
		writeReply(conn, holderReply{Error: fmt.Sprintf("unknown op %q", req.Op)})
		return false
	}
}

func writeReply(w io.Writer, r holderReply) {
	data, _ := json.Marshal(r)
	_, _ = w.Write(append(data, '\n'))
}

// callHolder sends req to the holder of the session at dir and waits for
// the reply (at most wait). An unreachable holder is ErrHolderDead, with
// the reason the holder left behind when it stopped on its own.
func callHolder(dir string, req holderRequest, wait time.Duration) (*holderReply, error) {
	conn, err := net.DialTimeout("unix", SocketPath(dir), 5*time.Second)
	if err != nil {
		return nil, holderGone(dir)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	data, _ := json.Marshal(req)
	if _, err := conn.Write(append(data, '\n')); err != nil {
		return nil, holderGone(dir)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("holder did not answer within %s", wait)
	}
	if err != nil {
		// The holder died while we talked (or just before): same as gone.
		return nil, holderGone(dir)
	}
	var rep holderReply
	if err := json.Unmarshal(line, &rep); err != nil {
		return nil, fmt.Errorf("bad holder reply: %w", err)
	}
	return &rep, nil
}

// holderGone is ErrHolderDead with the reason the holder left behind
// when it stopped on its own (idle timeout, signal), if any.
func holderGone(dir string) error {
	why := "it was killed or the machine restarted"
	if b, err := os.ReadFile(filepath.Join(dir, "holder.exit")); err == nil {
		why = string(trimNL(b))
	}
	return fmt.Errorf("%w (%s)", ErrHolderDead, why)
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// HolderGone is ErrHolderDead for the session at dir with the reason its
// holder left in holder.exit; delta-pty shares the convention.
func HolderGone(dir string) error { return holderGone(dir) }

// dirPoll is how often a holder checks that its session directory is
// still there.
const dirPoll = 250 * time.Millisecond

// WatchDir sends why on stop once the session directory dir is removed
// (or replaced by another directory of the same name), so that removing a
// session's directory ends its holder within a moment instead of leaving
// it to the idle timeout. It returns when it has sent. A directory that
// is already gone when the watch begins (removed right after start
// returned, before the holder got this far) stops the holder at once: the
// rule is the same whenever the directory goes. delta-pty's holder uses
// it too.
func WatchDir(dir string, stop chan<- string) {
	orig, err := os.Stat(dir)
	for err == nil {
		time.Sleep(dirPoll)
		var info os.FileInfo
		if info, err = os.Stat(dir); err == nil && !os.SameFile(orig, info) {
			break
		}
	}
	select {
	case stop <- "session directory " + dir + " removed":
	default: // already stopping for another reason
	}
}
