package pty

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/sessions"
)

// ScrollbackSize bounds the raw output a holder keeps.
const ScrollbackSize = 1 << 20

// DefaultWait is how long a read waits for --until or --idle when no
// --timeout is given.
const DefaultWait = 10 * time.Second

// ReadOptions say what a read returns and what it waits for.
type ReadOptions struct {
	Mode      string `json:"mode,omitempty"` // "text" (default), "screen" or "raw"
	Until     string `json:"until,omitempty"`
	IdleMS    int64  `json:"idle_ms,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// ReadResult is what read prints.
type ReadResult struct {
	Output   string `json:"output"`
	Matched  bool   `json:"matched"`
	TimedOut bool   `json:"timed_out"`
	Exited   bool   `json:"exited"`
	ExitCode *int   `json:"exit_code"`
}

// request is one JSON line from a client.
type request struct {
	Op   string       `json:"op"` // write, keys, read, end, status, attach
	Data []byte       `json:"data,omitempty"`
	Keys []string     `json:"keys,omitempty"`
	Read *ReadOptions `json:"read,omitempty"`
}

type reply struct {
	Read     *ReadResult `json:"read,omitempty"`
	Exited   bool        `json:"exited,omitempty"`
	ExitCode *int        `json:"exit_code,omitempty"`
	Error    string      `json:"error,omitempty"`
}

type holder struct {
	dir  string
	meta *Metadata
	ln   net.Listener
	ptmx *os.File
	cmd  *exec.Cmd

	reqMu sync.Mutex // one client request at a time

	mu       sync.Mutex
	ring     *ring
	vt       vt10x.Terminal
	cursor   int64
	lastOut  time.Time
	changed  chan struct{}
	exited   bool
	exitCode int
	eof      bool
	attached map[net.Conn]bool
	lastUse  time.Time
	why      string
	down     bool
}

// Hold is the holder process of a PTY session (delta-pty __hold DIR).
func Hold(dir string, ready io.WriteCloser) error {
	fail := sessions.StartupReporter(ready)
	m, err := loadMeta(dir)
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(m.Argv[0], m.Argv[1:]...)
	cmd.Dir = m.WorkDir
	cmd.Env = append(withoutTerm(os.Environ()), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(m.Cols), Rows: uint16(m.Rows)})
	if err != nil {
		return fail(fmt.Errorf("start %s: %w", m.Argv[0], err))
	}
	sock := sessions.SocketPath(dir)
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		killSession(cmd.Process.Pid)
		return fail(fmt.Errorf("listen on %s: %w", sock, err))
	}
	info, _ := json.Marshal(sessions.HolderInfo{PID: os.Getpid(), Socket: sock})
	if err := atomicfile.WriteNoSync(filepath.Join(dir, "holder.json"), info, 0o600); err != nil {
		killSession(cmd.Process.Pid)
		return fail(err)
	}
	h := &holder{
		dir: dir, meta: m, ln: ln, ptmx: ptmx, cmd: cmd, ring: newRing(ScrollbackSize),
		changed: make(chan struct{}), attached: map[net.Conn]bool{}, lastUse: time.Now(), lastOut: time.Now(),
	}
	h.vt = vt10x.New(vt10x.WithSize(m.Cols, m.Rows), vt10x.WithWriter(ptmx))
	go h.pump()
	go h.wait()
	fmt.Fprintln(ready, "ok")
	ready.Close()
	return h.serve()
}

func withoutTerm(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			out = append(out, kv)
		}
	}
	return out
}

// notify wakes every waiting read; the caller holds h.mu.
func (h *holder) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// pump copies the program's output into the scrollback, the terminal
// emulator and any attached terminals.
func (h *holder) pump() {
	buf := make([]byte, 32<<10)
	for {
		n, err := h.ptmx.Read(buf)
		h.mu.Lock()
		if n > 0 {
			h.ring.Write(buf[:n])
			_, _ = h.vt.Write(buf[:n])
			h.lastOut = time.Now()
			for c := range h.attached {
				_ = c.SetWriteDeadline(time.Now().Add(time.Second))
				if _, werr := c.Write(buf[:n]); werr != nil {
					delete(h.attached, c)
					c.Close()
				}
			}
		}
		if err != nil {
			h.eof = true
		}
		h.notify()
		h.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (h *holder) wait() {
	_ = h.cmd.Wait()
	code := h.cmd.ProcessState.ExitCode()
	if ws, ok := h.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	h.mu.Lock()
	h.exited, h.exitCode = true, code
	h.notify()
	h.mu.Unlock()
}

func (h *holder) serve() error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	stop := make(chan string, 2)
	go func() { stop <- "stopped by " + (<-sigs).String() }()
	if idle := time.Duration(h.meta.IdleTimeoutMS) * time.Millisecond; idle > 0 {
		go h.watchIdle(idle, stop)
	}
	go sessions.WatchDir(h.dir, stop)
	go func() {
		why := <-stop
		h.mu.Lock()
		h.why = why
		h.mu.Unlock()
		h.ln.Close()
	}()
	var inflight sync.WaitGroup
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			break
		}
		inflight.Add(1)
		go func() {
			defer inflight.Done()
			h.handle(conn)
		}()
	}
	h.shutdown("")
	inflight.Wait() // let the end request (and others) get their replies
	return nil
}

func (h *holder) watchIdle(idle time.Duration, stop chan<- string) {
	for {
		h.mu.Lock()
		left := idle - time.Since(h.lastUse)
		if len(h.attached) > 0 {
			left = idle // a person is attached: not idle
			h.lastUse = time.Now()
		}
		h.mu.Unlock()
		if left <= 0 {
			stop <- "idle for " + idle.String()
			return
		}
		time.Sleep(left)
	}
}

// shutdown stops the program and everything it started, and removes the
// holder's socket, leaving holder.exit with the reason.
func (h *holder) shutdown(why string) {
	h.mu.Lock()
	if h.down {
		h.mu.Unlock()
		return
	}
	h.down = true
	if why == "" {
		why = h.why
	}
	for c := range h.attached {
		c.Close()
	}
	h.mu.Unlock()
	killSession(h.cmd.Process.Pid)
	h.ptmx.Close()
	h.ln.Close()
	_ = os.Remove(sessions.SocketPath(h.dir))
	_ = os.Remove(filepath.Join(h.dir, "holder.json"))
	_ = atomicfile.WriteNoSync(filepath.Join(h.dir, "holder.exit"), []byte(why+"\n"), 0o600)
}

// handle answers one client connection: one request, or an attached
// terminal.
func (h *holder) handle(conn net.Conn) {
	br := bufio.NewReader(conn)
	line, err := br.ReadBytes('\n')
	if err != nil {
		conn.Close()
		return
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		writeReply(conn, reply{Error: "bad request: " + err.Error()})
		conn.Close()
		return
	}
	if req.Op == "attach" {
		h.attach(conn, br)
		return
	}
	defer conn.Close()
	h.reqMu.Lock()
	defer h.reqMu.Unlock()
	h.mu.Lock()
	h.lastUse = time.Now()
	h.mu.Unlock()
	switch req.Op {
	case "keys", "write":
		if r, done := h.write(&req); done {
			writeReply(conn, r)
			return
		}
		fallthrough
	case "read":
		res, err := h.read(req.Read)
		if err != nil {
			writeReply(conn, reply{Error: err.Error()})
			return
		}
		writeReply(conn, reply{Read: res})
	case "status":
		writeReply(conn, h.exitReply(false))
	case "end":
		h.shutdown("ended")
		writeReply(conn, h.exitReply(true))
		h.ln.Close()
	default:
		writeReply(conn, reply{Error: fmt.Sprintf("unknown op %q", req.Op)})
	}
}

// write sends a keys or write request's input to the terminal. It returns
// the reply and true when the request is done, or false when its read
// (write --read) follows.
func (h *holder) write(req *request) (reply, bool) {
	if req.Op == "keys" {
		h.mu.Lock()
		app := h.vt.Mode()&vt10x.ModeAppCursor != 0
		h.mu.Unlock()
		data, err := Keys(req.Keys, app)
		if err != nil {
			return reply{Error: err.Error()}, true
		}
		req.Data = data
	}
	if req.Read != nil {
		// write --read returns what followed the write, not older
		// output nobody read.
		h.mu.Lock()
		h.cursor = h.ring.end
		h.mu.Unlock()
	}
	if _, err := h.ptmx.Write(req.Data); err != nil {
		return reply{Error: "write to terminal: " + err.Error()}, true
	}
	return reply{}, req.Read == nil
}

// exitReply says whether the program has exited and how; ended marks it
// exited whatever it says (the session was just ended).
func (h *holder) exitReply(ended bool) reply {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := reply{Exited: ended || h.exited}
	if h.exited {
		c := h.exitCode
		r.ExitCode = &c
	}
	return r
}

// read waits as opt says and returns the output since the last read.
func (h *holder) read(opt *ReadOptions) (*ReadResult, error) {
	if opt == nil {
		opt = &ReadOptions{}
	}
	var re *regexp.Regexp
	if opt.Until != "" {
		var err error
		if _, err = regexp.Compile(opt.Until); err != nil {
			return nil, fmt.Errorf("bad --until pattern: %w", err)
		}
		// ^ and $ match at line boundaries: people mean a line.
		re = regexp.MustCompile("(?m)" + opt.Until)
	}
	idle := time.Duration(opt.IdleMS) * time.Millisecond
	timeout := time.Duration(opt.TimeoutMS) * time.Millisecond
	waits := re != nil || idle > 0 || timeout > 0
	if waits && timeout <= 0 {
		timeout = DefaultWait
	}
	start := time.Now()
	deadline := start.Add(timeout)
	res := &ReadResult{}
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		res.Output = h.view(opt.Mode)
		if re != nil && re.MatchString(res.Output) {
			res.Matched = true
			break
		}
		quietSince := h.lastOut
		if quietSince.Before(start) {
			quietSince = start
		}
		if idle > 0 && re == nil && time.Since(quietSince) >= idle {
			break
		}
		if !waits || (h.exited && h.eof) {
			break
		}
		now := time.Now()
		if !now.Before(deadline) {
			res.TimedOut = true
			break
		}
		wake := deadline
		if idle > 0 && re == nil && quietSince.Add(idle).Before(wake) {
			wake = quietSince.Add(idle)
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(time.Until(wake)):
		}
		h.mu.Lock()
	}
	h.cursor = h.ring.end
	res.Exited = h.exited && h.eof
	if h.exited {
		c := h.exitCode
		res.ExitCode = &c
		res.Exited = true
	}
	return res, nil
}

// view renders the output since the read cursor (text, raw) or the
// screen; the caller holds h.mu.
func (h *holder) view(mode string) string {
	switch mode {
	case "screen":
		return h.screen()
	case "raw":
		return string(h.ring.Since(h.cursor))
	default:
		if n := h.ring.Dropped(h.cursor); n > 0 {
			return fmt.Sprintf(droppedMarker, n) + Strip(h.ring.Since(h.cursor))
		}
		// Carriage returns and line wraps depend on the column the
		// unread output starts at, which the bytes before it tell.
		col := Column(h.ring.Before(h.cursor, 4096), h.meta.Cols)
		return StripAt(h.ring.Since(h.cursor), col, h.meta.Cols)
	}
}

// droppedMarker starts a text read whose oldest unread output no longer
// fits in the scrollback.
const droppedMarker = "[… %d bytes of older output dropped …]\n"

// screen renders the emulated terminal as plain text.
func (h *holder) screen() string {
	s := strings.ReplaceAll(h.vt.String(), "\x00", " ")
	return trimScreen(strings.Split(strings.TrimSuffix(s, "\n"), "\n"))
}

// attach turns conn into a raw two-way pipe to the terminal: first the
// current screen, then live output; input goes to the program.
func (h *holder) attach(conn net.Conn, br *bufio.Reader) {
	h.mu.Lock()
	scr := h.screen()
	h.attached[conn] = true
	h.mu.Unlock()
	_, _ = io.WriteString(conn, "\x1b[H\x1b[2J"+strings.ReplaceAll(scr, "\n", "\r\n"))
	_, _ = io.Copy(h.ptmx, br)
	h.mu.Lock()
	delete(h.attached, conn)
	h.lastUse = time.Now()
	h.mu.Unlock()
	conn.Close()
}

func writeReply(w io.Writer, r reply) {
	data, _ := json.Marshal(r)
	_, _ = w.Write(append(data, '\n'))
}
