package provider

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAllSSE reads every event of a stream and the error that ended it.
func readAllSSE(r *sseReader) ([]sseEvent, error) {
	var evs []sseEvent
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []sseEvent
		wantErr error
	}{
		{"empty", "", nil, io.EOF},
		{"one event", "data: hello\n\n", []sseEvent{{Data: "hello"}}, io.EOF},
		{"named event", "event: message_start\ndata: {}\n\n", []sseEvent{{Event: "message_start", Data: "{}"}}, io.EOF},
		{"no space after colon", "data:x\n\n", []sseEvent{{Data: "x"}}, io.EOF},
		{"only one space stripped", "data:  x\n\n", []sseEvent{{Data: " x"}}, io.EOF},
		{"multi-line data", "data: a\ndata: b\n\n", []sseEvent{{Data: "a\nb"}}, io.EOF},
		{"empty data line", "data\n\n", []sseEvent{{Data: ""}}, io.EOF},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{Data: "a"}, {Data: "b"}}, io.EOF},
		{"bare cr", "data: a\r\rdata: b\r\r", []sseEvent{{Data: "a"}, {Data: "b"}}, io.EOF},
		{"comments skipped", ": keep-alive\ndata: a\n: more\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"event without data not dispatched", "event: ping\n\ndata: a\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"event name does not leak", "event: x\n\ndata: a\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"id persists", "id: 1\ndata: a\n\ndata: b\n\n", []sseEvent{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}}, io.EOF},
		{"id with nul ignored", "id: a\x00b\ndata: a\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"retry and unknown fields ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"byte order mark", "\xef\xbb\xbfdata: a\n\n", []sseEvent{{Data: "a"}}, io.EOF},
		{"trailing event is incomplete", "data: a\n\ndata: b\n", []sseEvent{{Data: "a"}}, io.ErrUnexpectedEOF},
		{"trailing partial line", "data: a\n\ndata: b", []sseEvent{{Data: "a"}}, io.ErrUnexpectedEOF},
		{"trailing comment is not an event", "data: a\n\n: bye", []sseEvent{{Data: "a"}}, io.EOF},
		{"openai done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []sseEvent{{Data: `{"a":1}`}, {Data: "[DONE]"}}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mk := range []func(string) io.Reader{
				func(s string) io.Reader { return strings.NewReader(s) },
				func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			} {
				got, err := readAllSSE(newSSEReader(mk(tt.in)))
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("Next(%q) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Next(%q) events (-want +got):\n%s", tt.in, diff)
				}
			}
		})
	}
}

func TestSSEReaderLineTooLong(t *testing.T) {
	r := newSSEReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	r.max = 64
	if _, err := r.Next(); !errors.Is(err, errSSELineTooLong) {
		t.Fatalf("Next() error = %v, want errSSELineTooLong", err)
	}
	r = newSSEReader(strings.NewReader(strings.Repeat("data: "+strings.Repeat("x", 30)+"\n", 4) + "\n"))
	r.max = 64
	if _, err := r.Next(); !errors.Is(err, errSSELineTooLong) {
		t.Fatalf("Next() on a long event error = %v, want errSSELineTooLong", err)
	}
}

// TestSSEReaderDoesNotReadAhead checks that an event is returned as soon as
// its blank line arrives, without waiting for more of a live stream.
func TestSSEReaderDoesNotReadAhead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() { _, _ = pw.Write([]byte("data: a\r\r")) }()
	ev, err := newSSEReader(pr).Next()
	if err != nil || ev.Data != "a" {
		t.Fatalf("Next() = %+v, %v, want data a", ev, err)
	}
}

// referenceSSE is a direct, unbuffered transcription of the standard's
// algorithm over a whole string: the oracle for the fuzz test.
func referenceSSE(s string) ([]sseEvent, error) {
	s = strings.TrimPrefix(s, "\xef\xbb\xbf")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	last := lines[len(lines)-1] // "" when the stream ended with a line end
	lines = lines[:len(lines)-1]
	var (
		evs            []sseEvent
		data, ev, id   string
		hasData, dirty bool
	)
	for _, l := range lines {
		if l == "" {
			if hasData {
				evs = append(evs, sseEvent{Event: ev, Data: strings.TrimSuffix(data, "\n"), ID: id})
			}
			data, ev, hasData, dirty = "", "", false, false
			continue
		}
		if l[0] == ':' {
			continue
		}
		dirty = true
		name, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			ev = value
		case "data":
			data += value + "\n"
			hasData = true
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		}
	}
	if dirty || last != "" && last[0] != ':' {
		return evs, io.ErrUnexpectedEOF
	}
	return evs, io.EOF
}

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n",
		"event: e\r\ndata: a\r\ndata: b\r\n\r\n",
		"id: 7\rdata:x\r\r: c\r",
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"\xef\xbb\xbfdata\n\n",
		"data: a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := referenceSSE(s)
		got, err := readAllSSE(newSSEReader(iotest.OneByteReader(strings.NewReader(s))))
		if !errors.Is(err, wantErr) {
			t.Fatalf("Next(%q) error = %v, want %v", s, err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Next(%q) events (-want +got):\n%s", s, diff)
		}
	})
}
