package execute

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// capture is an io.Writer keeping the first half of its budget as a head,
// the last half as a ring (the tail) and, optionally, everything in a file.
// Its memory never exceeds its budget, whatever the output size.
type capture struct {
	head    []byte
	headCap int
	ring    []byte // grows to ringCap, then wraps around
	ringCap int
	ringPos int // next write position in ring
	ringLen int // bytes of ring in use
	total   int64
	// newlines counts the output's newlines; endsInNewline is whether
	// its last byte is one (see lines).
	newlines      int64
	endsInNewline bool
	file          *os.File
	fileErr       error
	// spill, when set, is the file created at the first byte the capture
	// would drop (at the first byte at all when eager): it then receives
	// everything, from the start. dropWhole removes it at close when the
	// capture holds the whole output.
	spill            string
	eager, dropWhole bool
}

func newCapture(max int, file *os.File) *capture {
	headCap := max / 2
	return &capture{
		headCap: headCap,
		ringCap: max - headCap,
		file:    file,
	}
}

// Write never fails: a command must not be disturbed by our bookkeeping.
// A failing file write is remembered in fileErr.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if c.spill != "" && c.file == nil && c.fileErr == nil && n > 0 && (c.eager || c.total+int64(n) > int64(c.headCap+c.ringCap)) {
		c.openSpill()
	}
	c.total += int64(n)
	if n > 0 {
		c.newlines += int64(bytes.Count(p, []byte{'\n'}))
		c.endsInNewline = p[n-1] == '\n'
	}
	if c.file != nil && c.fileErr == nil {
		if _, err := c.file.Write(p); err != nil {
			c.fileErr = fmt.Errorf("write %s: %w", c.file.Name(), err)
		}
	}
	if room := c.headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.writeRing(p)
	return n, nil
}

// openSpill creates the spill file and writes to it all the output so far,
// which the capture still holds whole.
func (c *capture) openSpill() {
	if err := os.MkdirAll(filepath.Dir(c.spill), 0o755); err != nil {
		c.fileErr = fmt.Errorf("create output dir: %w", err)
		return
	}
	f, err := os.Create(c.spill)
	if err != nil {
		c.fileErr = fmt.Errorf("create %s: %w", filepath.Base(c.spill), err)
		return
	}
	c.file = f
	for _, b := range [][]byte{c.head, c.tail()} {
		if _, err := f.Write(b); err != nil {
			c.fileErr = fmt.Errorf("write %s: %w", f.Name(), err)
			return
		}
	}
}

// lines is the number of lines of the whole output: its newlines, and
// one more for text after the last.
func (c *capture) lines() int64 {
	if c.total > 0 && !c.endsInNewline {
		return c.newlines + 1
	}
	return c.newlines
}

// path is the file that holds the whole output, "" when there is none.
func (c *capture) path() string {
	if c.file == nil {
		return ""
	}
	return c.file.Name()
}

// writeRing appends to the ring while it is smaller than ringCap (small
// outputs cost little memory), then overwrites its oldest bytes.
func (c *capture) writeRing(p []byte) {
	if len(c.ring) < c.ringCap && len(p) > 0 {
		k := min(c.ringCap-len(c.ring), len(p))
		c.ring = append(c.ring, p[:k]...)
		p = p[k:]
		c.ringLen = len(c.ring)
		c.ringPos = c.ringLen % c.ringCap
	}
	size := len(c.ring)
	if size == 0 || len(p) == 0 {
		return
	}
	if len(p) >= size {
		copy(c.ring, p[len(p)-size:])
		c.ringPos, c.ringLen = 0, size
		return
	}
	k := copy(c.ring[c.ringPos:], p)
	copy(c.ring, p[k:])
	c.ringPos = (c.ringPos + len(p)) % size
	c.ringLen = min(c.ringLen+len(p), size)
}

// tail returns the ring's content in order.
func (c *capture) tail() []byte {
	start := (c.ringPos - c.ringLen + len(c.ring)) % max(len(c.ring), 1)
	out := make([]byte, 0, c.ringLen)
	if start+c.ringLen <= len(c.ring) {
		return append(out, c.ring[start:start+c.ringLen]...)
	}
	out = append(out, c.ring[start:]...)
	return append(out, c.ring[:c.ringPos]...)
}

// String returns the whole output when nothing was dropped, else head, a
// marker saying how many bytes were omitted, and tail. The cut never
// splits a UTF-8 character.
func (c *capture) String() string {
	tail := c.tail()
	if c.total == int64(len(c.head)+len(tail)) {
		return string(c.head) + string(tail)
	}
	head := trimPartialEnd(c.head)
	tail = trimPartialStart(tail)
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, omitted, tail)
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of b.
func trimPartialEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimPartialStart drops continuation bytes at the start of b.
func trimPartialStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// close closes the file, and removes it when dropWhole says the capture
// alone is to keep an output it holds whole (path is then "").
func (c *capture) close() {
	if c.file == nil {
		return
	}
	if err := c.file.Close(); err != nil && c.fileErr == nil {
		c.fileErr = fmt.Errorf("close %s: %w", c.file.Name(), err)
	}
	if c.dropWhole && c.fileErr == nil && c.total <= int64(c.headCap+c.ringCap) {
		if err := os.Remove(c.file.Name()); err == nil {
			c.file = nil
		}
	}
}
