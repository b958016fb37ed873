package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// turn is one delta-run invocation (run or continue) under way.
type turn struct {
	cmd  *exec.Cmd
	done chan turnEnd
	// stopping is set once the turn was asked to stop.
	stopping bool
}

// turnEnd is how an invocation ended: its exit code and, when it printed
// one, its RunResult.
type turnEnd struct {
	code   int
	result *runResult
	err    error // the command could not be run at all
}

// runResult is what the chat reads of delta-run's --format json output.
type runResult struct {
	RunID  string          `json:"run_id"`
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Interaction *runs.Request `json:"interaction"`
	Metrics     struct {
		Iterations int `json:"iterations"`
	} `json:"metrics"`
	Metadata struct {
		WorkspacePath string `json:"workspace_path"`
	} `json:"metadata"`
}

// startTurn runs delta-run with args and stdin; its live stream (stderr)
// goes to out a whole line at a time, so that it never breaks the line
// being typed.
func startTurn(bin string, args []string, stdin string, out io.Writer) (*turn, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	lines := &lineWriter{w: out}
	cmd.Stderr = lines
	// Its own process group: a Ctrl-C on the terminal reaches the chat
	// only, which stops the turn the orderly way.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	t := &turn{cmd: cmd, done: make(chan turnEnd, 1)}
	go func() {
		err := cmd.Wait()
		lines.flush()
		end := turnEnd{}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			end.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				end.code = 128 + int(ws.Signal())
			}
		case err != nil:
			end.err, end.code = err, cli.ExitFailed
		}
		var r runResult
		if json.Unmarshal(stdout.Bytes(), &r) == nil && r.Status != "" {
			end.result = &r
		}
		t.done <- end
	}()
	return t, nil
}

// stop asks the turn to stop as Ctrl-C does (SIGINT): the run ends
// INTERRUPTED and can be continued.
func (t *turn) stop() {
	t.stopping = true
	_ = t.cmd.Process.Signal(os.Interrupt)
}

// lineWriter passes whole lines on; flush passes the rest.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		l.w.Write(l.buf[:i+1])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

func (l *lineWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.w.Write(append(l.buf, '\n'))
		l.buf = l.buf[:0]
	}
}
