package sessions

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// interp is one running interpreter with its driver.
type interp struct {
	cmd     *exec.Cmd
	req     *os.File
	replies chan driverReply
	stdout  *stream
	stderr  *stream
	exited  chan struct{}
	status  int // shell-style exit status, valid once exited is closed
}

type driverReply struct {
	ExitCode int `json:"exit_code"`
}

// stream collects one output pipe of the interpreter.
type stream struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
	notify chan struct{} // closed and replaced on every change
}

func newStream(r io.ReadCloser) *stream {
	s := &stream{notify: make(chan struct{})}
	go func() {
		b := make([]byte, 32<<10)
		for {
			n, err := r.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			if err != nil {
				s.closed = true
			}
			close(s.notify)
			s.notify = make(chan struct{})
			s.mu.Unlock()
			if err != nil {
				r.Close()
				return
			}
		}
	}()
	return s
}

// until returns the output before marker and drops it with the marker.
// Without the marker by the deadline (or at EOF) it returns all there is.
func (s *stream) until(marker []byte, deadline time.Time) string {
	for {
		s.mu.Lock()
		if i := bytes.Index(s.buf.Bytes(), marker); i >= 0 {
			out := string(s.buf.Next(i))
			s.buf.Next(len(marker))
			s.mu.Unlock()
			return out
		}
		if s.closed || !time.Now().Before(deadline) {
			out := s.buf.String()
			s.buf.Reset()
			s.mu.Unlock()
			return out
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// interpCommand returns the argv that runs the driver for kind.
func interpCommand(kind Kind, argv []string) ([]string, error) {
	path, err := resolve(argv)
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindPython:
		return append(append([]string{path}, argv[1:]...), "-u", "-c", pythonDriver), nil
	case KindNode:
		return append(append([]string{path}, argv[1:]...), "-e", nodeDriver), nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnsupported, argv[0])
}

// startInterp starts the interpreter of kind in workDir.
func startInterp(kind Kind, argv []string, workDir string) (*interp, error) {
	full, err := interpCommand(kind, argv)
	if err != nil {
		return nil, err
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1")
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	reqR.Close()
	repW.Close()
	ip := &interp{cmd: cmd, req: reqW, replies: make(chan driverReply, 1), exited: make(chan struct{})}
	ip.stdout, ip.stderr = newStream(outR), newStream(errR)
	go func() {
		sc := bufio.NewScanner(repR)
		for sc.Scan() {
			var r driverReply
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				ip.replies <- r
			}
		}
		repR.Close()
	}()
	go func() {
		// Wait only after the pipes are drained by the streams; cmd.Wait
		// closes them, so wait for the process with Wait4 instead.
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(cmd.Process.Pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		ip.status = ws.ExitStatus()
		if ws.Signaled() {
			ip.status = 128 + int(ws.Signal())
		}
		close(ip.exited)
	}()
	return ip, nil
}

// run executes code and collects its output; see holder for timeouts.
func (ip *interp) run(code string, timeout time.Duration) (res *Result, alive bool) {
	var mb [8]byte
	_, _ = rand.Read(mb[:])
	marker := "\x00delta-end-" + hex.EncodeToString(mb[:]) + "\x00"
	line, _ := json.Marshal(map[string]string{"code": code, "marker": marker})
	start := time.Now()
	res = &Result{}
	if _, err := ip.req.Write(append(line, '\n')); err != nil {
		return ip.finishDead(res, start), false
	}
	timer, stop := after(timeout)
	defer stop()
	select {
	case r := <-ip.replies:
		res.ExitCode = r.ExitCode
	case <-ip.exited:
		return ip.finishDead(res, start), false
	case <-timer:
		res.TimedOut = true
		_ = syscall.Kill(ip.cmd.Process.Pid, syscall.SIGINT)
		select {
		case r := <-ip.replies:
			res.ExitCode = r.ExitCode
		case <-ip.exited:
			return ip.finishDead(res, start), false
		case <-time.After(killGrace):
			ip.kill()
			r := ip.finishDead(res, start)
			r.Stderr += "delta-sessions: the interpreter did not recover from the interrupt and was restarted; its state is lost\n"
			return r, false
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	res.Stdout = ip.stdout.until([]byte(marker), deadline)
	res.Stderr = ip.stderr.until([]byte(marker), deadline)
	res.ExecutionTimeMS = time.Since(start).Milliseconds()
	return res, true
}

// finishDead collects what a dead interpreter wrote and marks state lost.
func (ip *interp) finishDead(res *Result, start time.Time) *Result {
	<-ip.exited
	deadline := time.Now().Add(time.Second)
	res.Stdout = ip.stdout.until([]byte{0, 0, 0, 0}, deadline)
	res.Stderr = ip.stderr.until([]byte{0, 0, 0, 0}, deadline)
	if !res.TimedOut {
		res.ExitCode = ip.status
	}
	res.StateLost = true
	res.Stderr += "delta-sessions: the interpreter exited; a fresh one was started and earlier state is lost\n"
	res.ExecutionTimeMS = time.Since(start).Milliseconds()
	return res
}

// kill ends the interpreter and everything it started.
func (ip *interp) kill() {
	_ = syscall.Kill(-ip.cmd.Process.Pid, syscall.SIGKILL)
	ip.req.Close()
	select {
	case <-ip.exited:
	case <-time.After(2 * time.Second):
	}
}
