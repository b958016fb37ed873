package main

import (
	"fmt"
	"io"
	"sync"
	"time"
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
	if s.color {
		line = "\x1b[2m" + line + "\x1b[0m"
	}
	fmt.Fprint(s.w, "\r\x1b[K"+line)
	s.shown = true
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
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
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
	s.what = ""
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
