package pty

// ring keeps the last size bytes of output, addressed by absolute offset
// (bytes written since the start), so read cursors survive wrap-around.
type ring struct {
	buf  []byte
	size int
	end  int64 // absolute offset after the last byte written
}

func newRing(size int) *ring { return &ring{size: size} }

func (r *ring) Write(p []byte) {
	r.end += int64(len(p))
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.size; over > 0 {
		// Copy down rather than reslice so the backing array stays bounded.
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
}

// Since returns the bytes from absolute offset off to the end; if off has
// already been dropped, it starts at the oldest byte kept.
func (r *ring) Since(off int64) []byte {
	start := r.end - int64(len(r.buf))
	if off < start {
		off = start
	}
	if off >= r.end {
		return nil
	}
	return append([]byte(nil), r.buf[off-start:]...)
}
