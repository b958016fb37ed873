package main

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// liveStream is the live stream's writer (stderr). The stream is a log: when
// its reader goes away (`2>&1 | head -1`, a closed terminal) the first
// failed write drops it and every later write is discarded, so the run goes
// on to its end and its journal and metadata stay consistent.
type liveStream struct {
	mu      sync.Mutex
	w       io.Writer
	dropped bool
}

func (s *liveStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped {
		return len(p), nil
	}
	if _, err := s.w.Write(p); err != nil {
		s.dropped = true
	}
	return len(p), nil
}

// Fd lets a terminal check (colour, asker) see the underlying file.
func (s *liveStream) Fd() uintptr {
	if f, ok := s.w.(*os.File); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// catchSignals makes the engine's stop signals cancel the run instead of
// killing the process: SIGINT (Ctrl-C), SIGTERM and SIGHUP (terminal
// closed, ssh dropped) all end it INTERRUPTED with a consistent journal.
// SIGPIPE is caught too, so that a write to a closed stdout/stderr returns
// EPIPE rather than killing delta-run mid-run; a caught (not ignored)
// signal is reset to its default in the tools delta-run starts.
func catchSignals() (stopSignals []os.Signal, release func()) {
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}, func() { signal.Stop(pipe) }
}
