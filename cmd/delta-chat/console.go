package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/chzyer/readline"
)

// input is one thing the user did: a line, Ctrl-C (with the line typed
// so far) or the end of input.
type input struct {
	line      string
	interrupt bool
	eof       bool
}

// console is where the chat talks with its user: lines come in on Lines
// after Ask; Out shows output without breaking the line being typed.
type console interface {
	// Ask makes sure a line is being read, with prompt (hidden input when
	// secret). A read already under way gets the new prompt.
	Ask(prompt string, secret bool)
	Lines() <-chan input
	Out() io.Writer
	// Live reports whether lines can be typed while a turn runs (a
	// terminal); otherwise each turn ends before the next line is read.
	Live() bool
	Close()
}

// reads runs read once per request, one read at a time, and delivers
// each result on lines: the reading both consoles share.
type reads struct {
	mu    sync.Mutex
	busy  bool // a read is under way
	want  chan struct{}
	lines chan input
}

func startReads(read func() input) *reads {
	r := &reads{want: make(chan struct{}, 1), lines: make(chan input)}
	go func() {
		for range r.want {
			in := read()
			r.mu.Lock()
			r.busy = false
			r.mu.Unlock()
			r.lines <- in
			if in.eof {
				return
			}
		}
	}()
	return r
}

// request starts a read unless one is under way; prepare, when set, runs
// first under the same lock and learns whether one is.
func (r *reads) request(prepare func(busy bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prepare != nil {
		prepare(r.busy)
	}
	if !r.busy {
		r.busy = true
		r.want <- struct{}{}
	}
}

// terminal is the console on a terminal: a line editor with history.
type terminal struct {
	rl      *readline.Instance
	restore func() // the terminal's own mode, put back on Close
	*reads
}

func newTerminal(in *os.File, out io.Writer) (*terminal, error) {
	restore, err := keepKeys(in)
	if err != nil {
		return nil, fmt.Errorf("set up the terminal: %w", err)
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          "> ",
		HistoryFile:     historyFile(),
		Stdin:           in,
		Stdout:          out,
		Stderr:          out,
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		MaskRune:        '*',
	})
	if err != nil {
		restore()
		return nil, err
	}
	t := &terminal{rl: rl, restore: restore}
	t.reads = startReads(func() input {
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			// The line being typed comes along: typed while a turn
			// runs, it is a steer the user has not sent yet.
			return input{interrupt: true, line: line}
		case err != nil:
			return input{eof: true}
		}
		return input{line: line}
	})
	return t, nil
}

// historyFile is $XDG_STATE_HOME/delta/chat_history (else under
// ~/.local/state); "" (no history kept) when neither can be made.
func historyFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	dir = filepath.Join(dir, "delta")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return filepath.Join(dir, "chat_history")
}

func (t *terminal) Ask(prompt string, secret bool) {
	t.request(func(busy bool) {
		t.rl.SetPrompt(prompt)
		// A secret answer is masked and kept out of the history.
		t.rl.Config.EnableMask = secret
		if secret {
			t.rl.HistoryDisable()
		} else {
			t.rl.HistoryEnable()
		}
		if busy {
			t.rl.Refresh() // the line being read gets the new prompt
		}
	})
}

func (t *terminal) Lines() <-chan input { return t.lines }
func (t *terminal) Out() io.Writer      { return t.rl }
func (t *terminal) Live() bool          { return true }
func (t *terminal) Close() {
	t.rl.Close()
	t.restore()
}

// plain is the console without a terminal: one line of input per Ask,
// no prompt, output as it is.
type plain struct {
	out io.Writer
	*reads
}

func newPlain(in io.Reader, out io.Writer) *plain {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	return &plain{out: out, reads: startReads(func() input {
		if sc.Scan() {
			return input{line: sc.Text()}
		}
		return input{eof: true}
	})}
}

func (p *plain) Ask(string, bool)    { p.request(nil) }
func (p *plain) Lines() <-chan input { return p.lines }
func (p *plain) Out() io.Writer      { return p.out }
func (p *plain) Live() bool          { return false }
func (p *plain) Close()              {}
