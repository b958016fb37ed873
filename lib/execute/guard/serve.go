package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/deltakit/delta/lib/sys"
)

// Main is the guard: args are the process's os.Args as described at Arg.
// It serves its caller until the socket closes, then kills every command
// still running, and returns the guard's exit code.
func Main(args []string) int {
	syscall.CloseOnExec(SockFD)
	s := &server{sock: SockFD, self: os.Getpid(), calls: map[uint64]*call{}, byPid: map[int]*call{}}
	if err := sys.BecomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: set child subreaper: %v\n", Name, err)
		return 126
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	s.send(Reply{Hello: Arg})
	reqs := make(chan request, 16)
	go readRequests(s.sock, reqs)
	s.serve(reqs, sigs)
	return 0
}

// server is the state of a running guard.
type server struct {
	sock  int
	self  int
	calls map[uint64]*call // running commands by request id
	byPid map[int]*call    // the same, by the command's pid (= its session)
	// ended are commands that exited and whose sessions are still to be
	// emptied before their status is reported.
	ended []*call
}

// call is one command the guard runs.
type call struct {
	id     uint64
	pid    int // the session leader, and the session's id
	status Status
}

// request is a decoded packet from the caller, with the descriptors and
// the command of a start request.
type request struct {
	Request
	cmd Command
	fds []int
	err error // a start request that could not be read
}

// serve handles requests and reaps children until the caller is gone.
func (s *server) serve(reqs <-chan request, sigs <-chan os.Signal) {
	for {
		select {
		case r, ok := <-reqs:
			if !ok {
				s.shutdown()
				return
			}
			s.handle(r)
		case sig := <-sigs:
			if sig == syscall.SIGCHLD {
				s.reap()
			} else {
				// Forwarded to every command, as it would have reached
				// them from a terminal.
				for _, c := range s.calls {
					s.signalSession(c.pid, sig.(syscall.Signal))
				}
			}
		}
		s.finish()
	}
}

// handle carries out one request.
func (s *server) handle(r request) {
	switch r.Op {
	case OpStart:
		s.start(r)
	case OpTerm, OpKill:
		c := s.calls[r.ID]
		if c == nil {
			return // ended meanwhile: its Done is on its way
		}
		if r.Op == OpTerm {
			s.signalSession(c.pid, syscall.SIGTERM)
		} else {
			s.signalSession(c.pid, syscall.SIGKILL)
		}
	}
}

// start runs a command as the leader of a new session.
func (s *server) start(r request) {
	defer closeAll(r.fds)
	if r.err != nil {
		s.send(Reply{ID: r.ID, Done: true, Status: Status{Code: 126, Error: r.err.Error()}})
		return
	}
	files := make([]uintptr, len(r.fds[:3]))
	for i, fd := range r.fds[:3] {
		files[i] = uintptr(fd)
	}
	pid, err := syscall.ForkExec(r.cmd.Path, r.cmd.Argv, &syscall.ProcAttr{
		Dir:   r.cmd.Dir,
		Env:   r.cmd.Env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		s.send(Reply{ID: r.ID, Done: true, Status: Status{Code: 126, Error: fmt.Sprintf("start %s: %v", r.cmd.Path, err)}})
		return
	}
	c := &call{id: r.ID, pid: pid}
	s.calls[c.id], s.byPid[pid] = c, c
	s.send(Reply{ID: c.id, Pid: pid})
}

// reap collects every exited child; a command's leader among them is
// queued for its session's clean-up.
func (s *server) reap() {
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || p <= 0 {
			return
		}
		if c := s.byPid[p]; c != nil {
			delete(s.byPid, p)
			if ws.Signaled() {
				c.status.Signal = int(ws.Signal())
			} else {
				c.status.Code = ws.ExitStatus()
			}
			s.ended = append(s.ended, c)
		}
	}
}

// finish empties the sessions of the commands that exited and reports
// them.
func (s *server) finish() {
	for len(s.ended) > 0 {
		c := s.ended[0]
		s.ended = s.ended[1:]
		s.killSession(c.pid)
		delete(s.calls, c.id)
		s.send(Reply{ID: c.id, Done: true, Status: c.status})
	}
}

// shutdown kills every command: the caller is gone.
func (s *server) shutdown() {
	for _, c := range s.calls {
		s.killSession(c.pid)
	}
}

// send writes one reply packet. A caller that is gone cannot be told
// anything; the closed socket ends the guard through readRequests.
func (s *server) send(r Reply) {
	data, _ := json.Marshal(r)
	sys.Send(s.sock, data)
}

// readRequests decodes packets into reqs until the socket closes or fails,
// then closes reqs. Descriptors arrive close-on-exec (sys.Recvmsg), so no
// command started meanwhile inherits another's.
func readRequests(sock int, reqs chan<- request) {
	defer close(reqs)
	buf := make([]byte, MaxPacket)
	oob := make([]byte, sys.RightsSpace(MaxFDs))
	for {
		n, oobn, err := sys.Recvmsg(sock, buf, oob)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		var r request
		r.fds = sys.ReceivedFDs(oob[:oobn])
		if err := json.Unmarshal(buf[:n], &r.Request); err != nil {
			closeAll(r.fds)
			continue // not our protocol: nothing to answer to
		}
		if r.Op == OpStart {
			r.err = r.readCommand()
		} else {
			closeAll(r.fds)
			r.fds = nil
		}
		reqs <- r
	}
}

// readCommand takes a start request's Command from the packet, or else
// reads it from its pipe (the fourth descriptor).
func (r *request) readCommand() error {
	if r.Command != nil && len(r.fds) == 3 {
		r.cmd = *r.Command
		return nil
	}
	if len(r.fds) != 4 {
		return fmt.Errorf("guard: start request with %d descriptors, want 3 with the command or 4", len(r.fds))
	}
	f := os.NewFile(uintptr(r.fds[3]), "command")
	r.fds = r.fds[:3]
	defer f.Close()
	data, err := io.ReadAll(f)
	if err == nil {
		err = json.Unmarshal(data, &r.cmd)
	}
	if err != nil {
		return fmt.Errorf("guard: read command: %v", err)
	}
	return nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}
