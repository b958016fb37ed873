package main

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/runs"
)

// turn is one delta-run invocation (run or continue) under way.
type turn struct {
	child *runs.Child
	done  chan turnEnd
	// stopping is set once the turn was asked to stop.
	stopping bool
}

// turnEnd is how an invocation ended: its exit code and, when it printed
// one, its Result.
type turnEnd struct {
	code   int
	result *runs.Result
	err    error // the command could not be run at all
}

// startTurn runs delta-run with args and stdin; its live stream (stderr)
// goes to out a whole line at a time, so that it never breaks the line
// being typed. It runs apart from the terminal: a Ctrl-C there reaches
// the chat only, which stops the turn the orderly way.
func startTurn(bin string, args []string, stdin string, out io.Writer) (*turn, error) {
	var stdout bytes.Buffer
	lines := &lineWriter{w: out}
	child, err := runs.StartChild(runs.ChildCommand{Binary: bin, Args: args, Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: lines})
	if err != nil {
		return nil, err
	}
	t := &turn{child: child, done: make(chan turnEnd, 1)}
	go func() {
		exit := child.Wait()
		lines.flush()
		end := turnEnd{code: exit.Code, err: exit.Err}
		end.result, _ = runs.DecodeResult(stdout.Bytes())
		t.done <- end
	}()
	return t, nil
}

// stop asks the turn to stop as Ctrl-C does (SIGINT): the run ends
// INTERRUPTED and can be continued.
func (t *turn) stop() {
	t.stopping = true
	t.child.Interrupt()
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
