package main

import (
	"bytes"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/journal"
)

// maxOutputChunk is the most of one stream a poll reads and shows: what
// a tool printed beyond it since the last poll is skipped (and counted),
// so that the cost of following a call does not grow with its output.
const maxOutputChunk = 16 << 10

// maxHeldLine is how much of a line without its end yet is held back for
// the rest of it (a line is shown whole when it can be, and a secret is
// rarely split across lines, which keeps redaction whole).
const maxHeldLine = 4 << 10

// callTail follows the output files of one running call.
type callTail struct {
	id      string
	streams [2]*outputTail
	polled  bool // a poll has read it
}

func newCallTail(runDir string, ev journal.Event) *callTail {
	c := &callTail{id: ev.CallID}
	for i, s := range []struct{ rel, name string }{{ev.OutputFile, "stdout"}, {ev.StderrFile, "stderr"}} {
		if s.rel != "" {
			c.streams[i] = &outputTail{path: filepath.Join(runDir, filepath.FromSlash(s.rel)), stream: s.name}
		}
	}
	return c
}

// read shows what the call printed since the last read; final (the call
// ended) shows all that is left, a line without its end too.
func (c *callTail) read(f *runFollower, sink liveSink, final bool) {
	for _, t := range c.streams {
		if t == nil {
			continue
		}
		text, skipped := t.read(final)
		if text == "" && skipped == 0 {
			continue
		}
		if f.redact != nil {
			text = f.redact.String(text)
		}
		sink.output(f.ref, toolOutput{CallID: c.id, Stream: t.stream, Text: text, Skipped: skipped})
	}
}

func (c *callTail) close() {
	for _, t := range c.streams {
		if t != nil && t.f != nil {
			t.f.Close()
		}
	}
}

// outputTail follows one output file: opened once it exists and kept
// open, so that the file being removed once the call ended (its output
// then lives in the record) loses nothing already written.
type outputTail struct {
	path   string
	stream string
	f      *os.File
	off    int64
	held   []byte // the start of a line whose end has not come yet
}

// read returns the text written since the last read and how many bytes
// before it were skipped.
func (t *outputTail) read(final bool) (string, int64) {
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			return "", 0
		}
		t.f = f
	}
	fi, err := t.f.Stat()
	if err != nil || fi.Size() < t.off {
		return "", 0
	}
	var skipped int64
	if n := fi.Size() - t.off; n > maxOutputChunk {
		skipped = n - maxOutputChunk + int64(len(t.held))
		t.off, t.held = fi.Size()-maxOutputChunk, nil
	}
	buf := make([]byte, fi.Size()-t.off)
	n, _ := t.f.ReadAt(buf, t.off)
	t.off += int64(n)
	data := append(t.held, buf[:n]...)
	t.held = nil
	if skipped > 0 {
		// Start at a line's start, not in the middle of one.
		if i := bytes.IndexByte(data, '\n'); i >= 0 && i+1 < len(data) {
			skipped += int64(i + 1)
			data = data[i+1:]
		}
	}
	if !final {
		data, t.held = splitHeld(data)
	}
	return string(data), skipped
}

// splitHeld cuts data after its last newline: what follows is held for
// the rest of its line, unless it is too long to wait for (it is then
// shown but for a UTF-8 character cut at its end).
func splitHeld(data []byte) (shown, held []byte) {
	end := bytes.LastIndexByte(data, '\n') + 1
	if len(data)-end > maxHeldLine {
		end = len(data)
		for i := 1; i < utf8.UTFMax && i <= len(data); i++ {
			if utf8.RuneStart(data[len(data)-i]) {
				if !utf8.FullRune(data[len(data)-i:]) {
					end = len(data) - i
				}
				break
			}
		}
	}
	return data[:end], bytes.Clone(data[end:])
}
