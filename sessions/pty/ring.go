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

// Dropped returns how many bytes from absolute offset off on are no longer
// kept (0 when off is still in the buffer).
func (r *ring) Dropped(off int64) int64 {
	return max(0, r.end-int64(len(r.buf))-off)
}

// Before returns up to n kept bytes that end at absolute offset off.
func (r *ring) Before(off int64, n int) []byte {
	start := r.end - int64(len(r.buf))
	if off <= start || off > r.end {
		return nil
	}
	from := max(start, off-int64(n))
	return r.buf[from-start : off-start]
}
