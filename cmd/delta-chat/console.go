package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/chzyer/readline"
)

// input is one thing the user did: a line, Ctrl-C or the end of input.
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

// terminal is the console on a terminal: a line editor with history.
type terminal struct {
	rl    *readline.Instance
	lines chan input
	mu    sync.Mutex
	want  chan struct{}
	busy  bool // a Readline is under way
}

func newTerminal(in io.ReadCloser, out io.Writer) (*terminal, error) {
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
		return nil, err
	}
	t := &terminal{rl: rl, lines: make(chan input), want: make(chan struct{}, 1)}
	go t.read()
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

// read runs one Readline per Ask.
func (t *terminal) read() {
	for range t.want {
		line, err := t.rl.Readline()
		t.mu.Lock()
		t.busy = false
		t.rl.Config.EnableMask = false
		t.rl.HistoryEnable()
		t.mu.Unlock()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			t.lines <- input{interrupt: true}
		case err != nil:
			t.lines <- input{eof: true}
			return
		default:
			t.lines <- input{line: line}
		}
	}
}

func (t *terminal) Ask(prompt string, secret bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rl.SetPrompt(prompt)
	// A secret answer is masked and kept out of the history.
	t.rl.Config.EnableMask = secret
	if secret {
		t.rl.HistoryDisable()
	} else {
		t.rl.HistoryEnable()
	}
	if t.busy {
		t.rl.Refresh()
		return
	}
	t.busy = true
	t.want <- struct{}{}
}

func (t *terminal) Lines() <-chan input { return t.lines }
func (t *terminal) Out() io.Writer      { return t.rl }
func (t *terminal) Live() bool          { return true }
func (t *terminal) Close()              { t.rl.Close() }

// plain is the console without a terminal: one line of input per Ask,
// no prompt, output as it is.
type plain struct {
	out   io.Writer
	lines chan input
	mu    sync.Mutex
	want  chan struct{}
	busy  bool
}

func newPlain(in io.Reader, out io.Writer) *plain {
	p := &plain{out: out, lines: make(chan input), want: make(chan struct{}, 1)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	go func() {
		for range p.want {
			in := input{eof: true}
			if sc.Scan() {
				in = input{line: sc.Text()}
			}
			p.mu.Lock()
			p.busy = false
			p.mu.Unlock()
			p.lines <- in
			if in.eof {
				return
			}
		}
	}()
	return p
}

func (p *plain) Ask(string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy {
		return
	}
	p.busy = true
	p.want <- struct{}{}
}

func (p *plain) Lines() <-chan input { return p.lines }
func (p *plain) Out() io.Writer      { return p.out }
func (p *plain) Live() bool          { return false }
func (p *plain) Close()              {}
