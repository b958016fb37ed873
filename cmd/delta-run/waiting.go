package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// waiting shows, on a terminal, what the run is waiting for and for how
// long ("⠋ waiting for the model · 4s"), on the line under the stream,
// redrawn in place. It wraps the stream's writer: anything written erases
// it first, so it never mixes with the stream. A nil *waiting does
// nothing (pipes).
type waiting struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	since time.Time
	shown bool
	frame int
	color bool
	done  chan struct{}
	// tail are the last lines of a running tool's output, shown above
	// the indicator; tailShown is how many of them are on the screen.
	tail      []string
	tailShown int
}

// waitingShowsAfter keeps quick steps from flickering.
const waitingShowsAfter = time.Second

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func startWaiting(w io.Writer, color bool) *waiting {
	s := &waiting{w: w, color: color, done: make(chan struct{})}
	go s.run()
	return s
}

func (s *waiting) run() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.draw()
		}
	}
}

func (s *waiting) draw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.what == "" || time.Since(s.since) < waitingShowsAfter {
		return
	}
	s.frame = (s.frame + 1) % len(spinnerFrames)
	line := fmt.Sprintf("%s %s · %ds", spinnerFrames[s.frame], s.what, int(time.Since(s.since).Seconds()))
	var b strings.Builder
	b.WriteString(s.eraseText())
	for _, t := range s.tail {
		b.WriteString(s.dim(t) + "\n")
	}
	b.WriteString(s.dim(line))
	fmt.Fprint(s.w, b.String())
	s.shown, s.tailShown = true, len(s.tail)
}

func (s *waiting) dim(line string) string {
	if s.color {
		return "\x1b[2m" + line + "\x1b[0m"
	}
	return line
}

// eraseText erases what draw drew: the indicator's line, then each tail
// line above it.
func (s *waiting) eraseText() string {
	if !s.shown {
		return ""
	}
	return "\r\x1b[K" + strings.Repeat("\x1b[A\x1b[K", s.tailShown)
}

// setTail shows lines above the indicator (nil: none); each must fit on
// one line of the terminal.
func (s *waiting) setTail(lines []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = lines
}

// width is the terminal's width in columns (80 when unknown).
func (s *waiting) width() int {
	if f, ok := s.w.(interface{ Fd() uintptr }); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// Write erases the indicator, then writes p.
func (s *waiting) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
	return s.w.Write(p)
}

// Fd lets terminal checks see the file underneath.
func (s *waiting) Fd() uintptr {
	if f, ok := s.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (s *waiting) eraseLocked() {
	if s.shown {
		fmt.Fprint(s.w, s.eraseText())
		s.shown, s.tailShown = false, 0
	}
}

// set starts showing what (unless it is already what is shown).
func (s *waiting) set(what string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.what != what {
		s.what, s.since = what, time.Now()
	}
}

// clear stops the indicator and erases it.
func (s *waiting) clear() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.what, s.tail = "", nil
	s.eraseLocked()
}

// stop ends the indicator for good.
func (s *waiting) stop() {
	if s == nil {
		return
	}
	s.clear()
	close(s.done)
}
