package sessions

import (
	"fmt"
	"strings"
)

// DefaultMaxOutput is how much of each of stdout and stderr an exec
// returns by default: the 30,000 of seeds/001 §5.2 for shell output, kept
// as head and tail (the start has the setup, the end the result).
const DefaultMaxOutput = 30000

// cutMarker replaces the middle of an output that was too long.
const cutMarker = "\n[… %d bytes of output cut from the middle by delta-sessions (exec --max-output) …]\n"

// capWriter collects a command's output in bounded memory: the first half
// of limit bytes and the last half, counting what falls in between, so
// a command printing gigabytes costs no more than limit bytes.
type capWriter struct {
	limit int // 0: keep everything
	head  []byte
	tail  []byte
	total int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.total += int64(n)
	if w.limit <= 0 {
		w.head = append(w.head, p...)
		return n, nil
	}
	if room := w.limit/2 - len(w.head); room > 0 {
		k := min(room, len(p))
		w.head = append(w.head, p[:k]...)
		p = p[k:]
	}
	w.tail = append(w.tail, p...)
	if keep := w.limit - w.limit/2; len(w.tail) > 2*keep {
		// Compact now and then rather than on every write.
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-keep:]...)
	}
	return n, nil
}

// WriteString lets the exec code add its own notes.
func (w *capWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// String returns the output, with a marker saying how much was cut.
func (w *capWriter) String() string {
	tail := w.tail
	if keep := w.limit - w.limit/2; w.limit > 0 && len(tail) > keep {
		tail = tail[len(tail)-keep:]
	}
	cut := w.total - int64(len(w.head)) - int64(len(tail))
	if cut <= 0 {
		return string(w.head) + string(tail)
	}
	return strings.ToValidUTF8(string(w.head), "") + fmt.Sprintf(cutMarker, cut) + strings.ToValidUTF8(string(tail), "")
}

// capOutput is capWriter for output already in memory (an interpreter's).
func capOutput(s string, limit int) string {
	w := &capWriter{limit: limit}
	_, _ = w.WriteString(s)
	return w.String()
}
