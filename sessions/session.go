package sessions

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// StartOptions configure a new session.
type StartOptions struct {
	// WorkDir is where the session starts (default: the current directory).
	WorkDir string
	// IdleTimeout stops an interpreter holder unused this long (0: never).
	IdleTimeout time.Duration
	// ID is a caller-chosen session id (sess_…); empty picks a random one.
	ID string
	// Holder is the command line that runs Hold for a session directory,
	// which is appended: normally {os.Executable(), "__hold"}.
	Holder []string
}

// Start creates a session for argv (default bash). Shell sessions take a
// first snapshot of their state right away; interpreter sessions start
// their holder and wait until it is ready.
func (s *Store) Start(argv []string, opt StartOptions) (*Metadata, error) {
	if len(argv) == 0 {
		argv = []string{"bash"}
	}
	kind, err := KindOf(argv)
	if err != nil {
		return nil, err
	}
	if _, err := resolve(argv); err != nil {
		return nil, err
	}
	wd, err := WorkDir(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	id, err := ids.Pick(opt.ID)
	if err != nil {
		return nil, err
	}
	m := &Metadata{
		SessionID: id, Command: CommandLine(argv), Argv: argv, Kind: kind,
		CreatedAt: time.Now().UTC().Truncate(time.Second), Status: StatusActive, WorkDir: wd,
		IdleTimeoutMS: opt.IdleTimeout.Milliseconds(),
	}
	dir, err := s.Create(m)
	if err != nil {
		return nil, err
	}
	if kind.Held() {
		err = SpawnHolder(dir, opt.Holder)
	} else {
		err = firstSnapshot(dir, m, s.MaxOutput)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return m, nil
}

// firstSnapshot saves the state a new shell session starts with.
func firstSnapshot(dir string, m *Metadata, maxOutput int) error {
	lock, err := LockFile(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	_, err = execShell(dir, m, ":", DefaultTimeout, maxOutput, lock)
	return err
}

// SpawnHolder starts the holder detached (its own session, stdio on
// /dev/null and holder.log) and waits for its "ok" on fd 3. delta-pty uses it too.
func SpawnHolder(dir string, holder []string) error {
	if len(holder) == 0 {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find own executable: %w", err)
		}
		holder = []string{self, "__hold"}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	logf, err := os.OpenFile(filepath.Join(dir, "holder.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		w.Close()
		return fmt.Errorf("open holder log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(holder[0], append(holder[1:], dir)...)
	cmd.Dir = dir
	cmd.Stderr = logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start holder: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap it if it dies while we still run
	done := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		done <- strings.TrimSpace(line)
	}()
	select {
	case msg := <-done:
		if msg != "ok" {
			if msg == "" {
				msg = "holder exited during startup (see holder.log)"
			}
			return fmt.Errorf("start holder: %s", msg)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		return fmt.Errorf("start holder: not ready after 30s")
	}
}

// Exec runs command in session id with the given timeout (0: none),
// holding the session lock so concurrent execs run one after the other.
func (s *Store) Exec(id, command string, timeout time.Duration) (*Result, error) {
	m, err := s.Load(id)
	if err != nil {
		return nil, err
	}
	dir := s.Path(id)
	lock, err := LockFile(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if m, err = s.Load(id); err != nil { // it may have ended while we waited
		return nil, err
	}
	if m.Status == StatusTerminated {
		return nil, fmt.Errorf("%w: %s", ErrEnded, id)
	}
	var res *Result
	if m.Kind.Held() {
		res, err = execHeld(dir, command, timeout)
		if err != nil {
			if isDead(err) && m.Status != StatusDead {
				m.Status = StatusDead
				_ = s.Save(m)
			}
			return nil, err
		}
		res.Stdout, res.Stderr = capOutput(res.Stdout, s.MaxOutput), capOutput(res.Stderr, s.MaxOutput)
	} else if res, err = execShell(dir, m, command, timeout, s.MaxOutput, lock); err != nil {
		return nil, err
	}
	m.ExecutionCount++
	m.LastExecutedAt = time.Now().UTC().Truncate(time.Millisecond)
	// Under the lock, metadata.json is replaced through its spare (see
	// exchange): no file created or deleted per exec.
	data, err := encodeMetadata(m)
	if err == nil {
		err = replaceFile(dir, "metadata.json", data)
	}
	if err != nil {
		return nil, fmt.Errorf("save session metadata: %w", err)
	}
	appendHistory(dir, command, res)
	return res, nil
}

func execHeld(dir, command string, timeout time.Duration) (*Result, error) {
	wait := timeout + killGrace + 10*time.Second
	if timeout <= 0 {
		wait = 365 * 24 * time.Hour
	}
	rep, err := callHolder(dir, holderRequest{Op: "exec", Code: command, TimeoutMS: timeout.Milliseconds()}, wait)
	if err != nil {
		return nil, err
	}
	if rep.Error != "" {
		return rep.Result, fmt.Errorf("holder: %s", rep.Error)
	}
	return rep.Result, nil
}

// appendHistory adds one line to history.log; it is a debugging aid, so
// failing to write it does not fail the exec.
func appendHistory(dir, command string, res *Result) {
	f, err := os.OpenFile(filepath.Join(dir, "history.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(map[string]any{
		"at": time.Now().UTC().Format(time.RFC3339Nano), "command": command,
		"exit_code": res.ExitCode, "execution_time_ms": res.ExecutionTimeMS, "timed_out": res.TimedOut,
	})
	_, _ = f.Write(append(line, '\n'))
}

// End terminates session id: stops its holder, if any, and marks it
// terminated. Its directory stays for inspection.
func (s *Store) End(id string) (*Metadata, error) {
	m, err := s.Load(id)
	if err != nil {
		return nil, err
	}
	if m.Status == StatusTerminated {
		return nil, fmt.Errorf("%w: %s", ErrEnded, id)
	}
	dir := s.Path(id)
	if m.Kind.Held() {
		if _, err := callHolder(dir, holderRequest{Op: "end"}, 10*time.Second); err != nil && !isDead(err) {
			return nil, err
		}
	}
	unlock, err := Lock(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	m.Status = StatusTerminated
	return m, s.Save(m)
}

// Alive refreshes the status of an interpreter session whose holder is
// gone to dead (without saving it).
func (s *Store) Alive(m *Metadata) {
	if !m.Kind.Held() || m.Status != StatusActive {
		return
	}
	// Dial rather than kill(pid, 0): a killed holder may linger as a
	// zombie when nothing reaps it.
	conn, err := net.DialTimeout("unix", SocketPath(s.Path(m.SessionID)), 2*time.Second)
	if err != nil {
		m.Status = StatusDead
		return
	}
	conn.Close()
}

func isDead(err error) bool { return err != nil && errors.Is(err, ErrHolderDead) }
