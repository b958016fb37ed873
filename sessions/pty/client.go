package pty

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/deltakit/delta/sessions"
)

// StartOptions configure a new PTY session.
type StartOptions struct {
	ID          string // caller-chosen id (pty_…); empty: random
	WorkDir     string
	Cols, Rows  int
	IdleTimeout time.Duration
	Holder      []string // command running Hold; default: this binary __hold
}

// Start creates a PTY session running argv (default: bash) in a detached
// holder and waits until the holder is ready.
func (s *Store) Start(argv []string, opt StartOptions) (*Metadata, error) {
	if len(argv) == 0 {
		argv = []string{"bash"}
	}
	if _, err := execLookPath(argv[0]); err != nil {
		return nil, err
	}
	id, err := ids.Pick(opt.ID)
	if err != nil {
		return nil, err
	}
	wd, err := sessions.WorkDir(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	if opt.Cols <= 0 || opt.Rows <= 0 {
		return nil, fmt.Errorf("terminal size %dx%d: columns and rows must be positive", opt.Cols, opt.Rows)
	}
	m := &Metadata{
		SessionID: id, Command: sessions.CommandLine(argv), Argv: argv, WorkDir: wd,
		CreatedAt: time.Now().UTC().Truncate(time.Second), Status: StatusActive,
		Cols: opt.Cols, Rows: opt.Rows, IdleTimeoutMS: opt.IdleTimeout.Milliseconds(),
	}
	dir, err := sessions.CreateDir(s.Dir, id)
	if err != nil {
		return nil, err
	}
	if err := s.Save(m); err != nil {
		return nil, err
	}
	if err := sessions.SpawnHolder(dir, opt.Holder); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return m, nil
}

// open checks that session id is live and returns its directory.
func (s *Store) open(id string) (string, *Metadata, error) {
	m, err := s.Load(id)
	if err != nil {
		return "", nil, err
	}
	if m.Status == StatusTerminated {
		return "", nil, fmt.Errorf("%w: %s", ErrEnded, id)
	}
	return s.Path(id), m, nil
}

// call sends one request to the holder of dir and decodes the reply.
func call(dir string, req request, wait time.Duration) (*reply, error) {
	conn, err := net.DialTimeout("unix", sessions.SocketPath(dir), 5*time.Second)
	if err != nil {
		return nil, sessions.HolderGone(dir)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	data, _ := json.Marshal(req)
	if _, err := conn.Write(append(data, '\n')); err != nil {
		return nil, sessions.HolderGone(dir)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("holder did not answer within %s", wait)
	}
	if err != nil {
		return nil, sessions.HolderGone(dir)
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return nil, fmt.Errorf("bad holder reply: %w", err)
	}
	if rep.Error != "" {
		return nil, errors.New(rep.Error)
	}
	return &rep, nil
}

func waitFor(opt *ReadOptions) time.Duration {
	if opt == nil {
		return 30 * time.Second
	}
	t := time.Duration(opt.TimeoutMS) * time.Millisecond
	if t <= 0 {
		t = DefaultWait
	}
	return t + 30*time.Second
}

// Write sends data to the program's terminal; with read non-nil it then
// reads as Read does and returns the result.
func (s *Store) Write(id string, data []byte, read *ReadOptions) (*ReadResult, error) {
	return s.exchange(id, request{Op: "write", Data: data, Read: read})
}

// PressKeys presses the named keys (see Keys), in the cursor-key mode the
// program has set, then reads like Write.
func (s *Store) PressKeys(id string, names []string, read *ReadOptions) (*ReadResult, error) {
	if _, err := Keys(names, false); err != nil {
		return nil, err
	}
	return s.exchange(id, request{Op: "keys", Keys: names, Read: read})
}

// Read returns the output since the last read (text or raw) or the
// screen, after waiting as opt says.
func (s *Store) Read(id string, opt *ReadOptions) (*ReadResult, error) {
	return s.exchange(id, request{Op: "read", Read: opt})
}

// exchange sends req to the holder of live session id, waiting as long
// as its read may take, and returns what was read (nil without a read).
func (s *Store) exchange(id string, req request) (*ReadResult, error) {
	dir, _, err := s.open(id)
	if err != nil {
		return nil, err
	}
	rep, err := call(dir, req, waitFor(req.Read))
	if err != nil {
		return nil, err
	}
	return rep.Read, nil
}

// End stops the program and everything it started, and the holder.
func (s *Store) End(id string) (*Metadata, *int, error) {
	dir, m, err := s.open(id)
	if err != nil {
		return nil, nil, err
	}
	var code *int
	rep, err := call(dir, request{Op: "end"}, 30*time.Second)
	if err != nil && !errors.Is(err, sessions.ErrHolderDead) {
		return nil, nil, err
	}
	if rep != nil {
		code = rep.ExitCode
	}
	m.Status = StatusTerminated
	return m, code, s.Save(m)
}

// Refresh sets the live status of m: exited when the program ended, dead
// when the holder is gone.
func (s *Store) Refresh(m *Metadata) {
	if m.Status != StatusActive {
		return
	}
	dir := s.Path(m.SessionID)
	rep, err := call(dir, request{Op: "status"}, 5*time.Second)
	switch {
	case errors.Is(err, sessions.ErrHolderDead):
		m.Status = StatusDead
	case err == nil && rep.Exited:
		m.Status = StatusExited
	}
}

// Attach connects a person's terminal (in, out) to the session until
// in ends or the detach byte is typed.
func (s *Store) Attach(id string, in io.Reader, out io.Writer, detach byte) error {
	dir, _, err := s.open(id)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("unix", sessions.SocketPath(dir), 5*time.Second)
	if err != nil {
		return sessions.HolderGone(dir)
	}
	defer conn.Close()
	data, _ := json.Marshal(request{Op: "attach"})
	if _, err := conn.Write(append(data, '\n')); err != nil {
		return sessions.HolderGone(dir)
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, conn)
		close(done)
	}()
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if i := indexByte(buf[:n], detach); i >= 0 {
			_, _ = conn.Write(buf[:i])
			break
		}
		if n > 0 {
			if _, werr := conn.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	// Let the holder echo what was typed last before we go.
	select {
	case <-done:
	case <-time.After(200 * time.Millisecond):
	}
	return nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
