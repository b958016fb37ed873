package provider

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The one reader of server-sent events every streaming client uses
// (Chat Completions, Responses, Anthropic Messages, Gemini). It follows the
// HTML living standard's "event stream interpretation" so that a provider's
// odd but valid framing (bare "\r" line ends, "data:" without a space,
// comments as keep-alives) reads the same everywhere, and it bounds what it
// buffers so a hostile or broken endpoint cannot grow memory without limit.

// errSSELineTooLong reports a line, or an event's data, over the reader's limit.
var errSSELineTooLong = errors.New("server-sent event line too long")

// sseMaxLine bounds one line and one event's data. The largest legitimate
// events (a whole tool call's arguments, an encrypted reasoning item) are
// far below it.
const sseMaxLine = 8 << 20

// sseEvent is one server-sent event as the HTML living standard defines it.
type sseEvent struct {
	Event string // the event: field; "" when the event had none
	Data  string // the data: lines joined with "\n"
	ID    string // the last event ID seen so far in the stream
}

// sseReader reads events from a text/event-stream body.
type sseReader struct {
	br      *bufio.Reader
	max     int  // the bound on one line and one event's data
	skipLF  bool // the last line ended in "\r": a "\n" right after belongs to it
	started bool // the optional byte order mark has been dealt with
	lastID  string
	line    []byte
}

// newSSEReader returns a reader of the events in r.
func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10), max: sseMaxLine}
}

// Next returns the next event; io.EOF after the last complete event; an error
// (wrapping errSSELineTooLong) for a line over the limit.
// Comment lines (":...") are skipped; "\r\n", "\n" and "\r" all end lines; an
// event is dispatched on a blank line; a trailing event without a blank line at
// EOF is incomplete and reported as io.ErrUnexpectedEOF. As the standard says,
// an event without data lines is not dispatched.
func (r *sseReader) Next() (sseEvent, error) {
	var (
		data    strings.Builder
		hasData bool
		event   string
		pending bool // a field line was seen since the last dispatch
	)
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && (pending || len(line) > 0 && line[0] != ':') {
				return sseEvent{}, io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !hasData {
				event, pending = "", false
				continue
			}
			return sseEvent{Event: event, Data: strings.TrimSuffix(data.String(), "\n"), ID: r.lastID}, nil
		}
		if line[0] == ':' {
			continue
		}
		pending = true
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], bytes.TrimPrefix(line[i+1:], []byte(" "))
		}
		switch string(name) {
		case "event":
			event = string(value)
		case "data":
			if data.Len()+len(value)+1 > r.max {
				return sseEvent{}, fmt.Errorf("event data over %d bytes: %w", r.max, errSSELineTooLong)
			}
			data.Write(value)
			data.WriteByte('\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
			}
		}
		// "retry" and unknown fields are ignored: we never reconnect by ourselves.
	}
}

// readLine returns the next line without its terminator. At the end of the
// stream it returns what is left of an unterminated line with io.EOF.
func (r *sseReader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	if r.skipLF {
		r.skipLF = false
		if b, err := r.br.Peek(1); err == nil && b[0] == '\n' {
			_, _ = r.br.Discard(1)
		}
	}
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
			_, _ = r.br.Discard(3)
		}
	}
	for {
		chunk, err := r.br.Peek(1)
		if err != nil {
			return r.line, err
		}
		chunk, _ = r.br.Peek(r.br.Buffered())
		i := bytes.IndexAny(chunk, "\r\n")
		n := i
		if i < 0 {
			n = len(chunk)
		}
		if len(r.line)+n > r.max {
			return nil, fmt.Errorf("line over %d bytes: %w", r.max, errSSELineTooLong)
		}
		r.line = append(r.line, chunk[:n]...)
		if i < 0 {
			_, _ = r.br.Discard(n)
			continue
		}
		r.skipLF = chunk[i] == '\r'
		_, _ = r.br.Discard(n + 1)
		return r.line, nil
	}
}
