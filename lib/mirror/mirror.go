// Package mirror is the line protocol between delta-run and its mirror
// process (delta-cluster mirror) over the mirror's stdin and stdout. Both
// sides use it; it imports no NATS code, so delta-run links none.
//
// Each frame is a header line "VERB N LEN\n" followed by LEN bytes of
// payload and a newline. N is a number whose meaning depends on the verb
// (a seq, a sync id); the payload carries bytes verbatim (a journal line
// is mirrored exactly as written, never re-encoded).
//
// delta-run → mirror:
//
//	append SEQ  payload: the exact journal line (no newline)
//	sync ID     answered "synced ID" once every earlier append is stored
//	close 0     the run has ended: flush metadata and io/, release the lease
//
// mirror → delta-run:
//
//	ready 0     payload: Ready as JSON (the lease is held, the journals agree)
//	refused 0   payload: why the mirror will not mirror this run (held elsewhere, forked)
//	synced ID   every append before sync ID is stored by the cluster
//	error 0     payload: the cluster could not be reached within the retry bound
//	fenced 0    payload: the lease was lost or an append refused: stop now
package mirror

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Verbs of the protocol.
const (
	Append  = "append"
	Sync    = "sync"
	Close   = "close"
	Ready   = "ready"
	Refused = "refused"
	Synced  = "synced"
	Error   = "error"
	Fenced  = "fenced"
)

// MaxPayload bounds a frame's payload: a journal line is at most 1 MiB in
// the cluster (DELTA_JOURNAL's MaxMsgSize); a little more is accepted so
// the cluster, not the pipe, says what is too big.
const MaxPayload = 4 << 20

// Frame is one message of the protocol.
type Frame struct {
	Verb string
	N    uint64
	Data []byte
}

// ReadyInfo is the payload of "ready".
type ReadyInfo struct {
	Epoch uint64 `json:"epoch"`
	// ClusterLastSeq is the seq the cluster's copy ended at before this
	// mirror started (0: it had none).
	ClusterLastSeq int `json:"cluster_last_seq"`
	// Backfilled is how many local lines the mirror stored first (a run
	// that was local so far, or that stopped while the cluster was away).
	Backfilled int `json:"backfilled"`
}

// Writer writes frames; it is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one frame and flushes it.
func (w *Writer) Write(f Frame) error {
	if len(f.Data) > MaxPayload {
		return fmt.Errorf("mirror frame %s: payload of %d bytes is over %d", f.Verb, len(f.Data), MaxPayload)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w.WriteString(f.Verb)
	w.w.WriteByte(' ')
	w.w.WriteString(strconv.FormatUint(f.N, 10))
	w.w.WriteByte(' ')
	w.w.WriteString(strconv.Itoa(len(f.Data)))
	w.w.WriteByte('\n')
	w.w.Write(f.Data)
	w.w.WriteByte('\n')
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("write to the mirror pipe: %w", err)
	}
	return nil
}

// WriteReady writes "ready" with info.
func (w *Writer) WriteReady(info ReadyInfo) error {
	data, _ := json.Marshal(info)
	return w.Write(Frame{Verb: Ready, Data: data})
}

// Reader reads frames.
type Reader struct{ r *bufio.Reader }

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// ErrFrame is a malformed frame: the other side is not speaking this
// protocol (or is another version of it).
var ErrFrame = errors.New("malformed mirror frame")

// Read returns the next frame; io.EOF when the stream ended between frames.
func (r *Reader) Read() (Frame, error) {
	header, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return Frame{}, fmt.Errorf("%w: header line too long", ErrFrame)
	}
	if err == io.EOF && len(header) == 0 {
		return Frame{}, io.EOF
	}
	if err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrFrame, unexpected(err))
	}
	f, size, err := parseHeader(header[:len(header)-1])
	if err != nil {
		return Frame{}, err
	}
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(r.r, buf); err != nil {
		return Frame{}, fmt.Errorf("%w: %s payload: %v", ErrFrame, f.Verb, unexpected(err))
	}
	if buf[size] != '\n' {
		return Frame{}, fmt.Errorf("%w: %s payload of %d bytes not followed by a newline", ErrFrame, f.Verb, size)
	}
	f.Data = buf[:size]
	return f, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseHeader parses "VERB N LEN".
func parseHeader(h []byte) (Frame, int, error) {
	var fields [3][]byte
	n := 0
	start := 0
	for i := 0; i <= len(h); i++ {
		if i == len(h) || h[i] == ' ' {
			if n == 3 || i == start {
				return Frame{}, 0, fmt.Errorf("%w: header %q is not VERB N LEN", ErrFrame, h)
			}
			fields[n] = h[start:i]
			n++
			start = i + 1
		}
	}
	if n != 3 {
		return Frame{}, 0, fmt.Errorf("%w: header %q is not VERB N LEN", ErrFrame, h)
	}
	verb := string(fields[0])
	if !known(verb) {
		return Frame{}, 0, fmt.Errorf("%w: unknown verb %q", ErrFrame, verb)
	}
	num, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil || !canonical(fields[1]) {
		return Frame{}, 0, fmt.Errorf("%w: %s: bad number %q", ErrFrame, verb, fields[1])
	}
	size, err := strconv.Atoi(string(fields[2]))
	if err != nil || !canonical(fields[2]) || size > MaxPayload {
		return Frame{}, 0, fmt.Errorf("%w: %s: bad payload length %q", ErrFrame, verb, fields[2])
	}
	return Frame{Verb: verb, N: num}, size, nil
}

// canonical reports whether a number is written the one way Writer
// writes it: digits only, no leading zero.
func canonical(num []byte) bool {
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(num) == 1 || num[0] != '0'
}

func known(verb string) bool {
	switch verb {
	case Append, Sync, Close, Ready, Refused, Synced, Error, Fenced:
		return true
	}
	return false
}
