package journal

import "unsafe"

// sharedStrings makes the strings of one journal's events without an
// allocation each, for ScanFields: on a long run, making every kept string
// apart (a conversation keeps most of them) cost as much as decoding them.
// A plain string (ASCII without escapes) is a view of the journal's bytes,
// which are never changed once read; a string with escapes is decoded into
// a buffer shared by the strings after it. The price is that a string kept
// keeps the whole journal, and its buffer, in memory: what a reader that
// keeps the conversation holds anyway.
type sharedStrings struct {
	buf []byte // decoded strings, appended; a full one is left to its strings
}

// sharedChunk is the size of the buffers decoded strings share.
const sharedChunk = 32 << 10

// str is the string of the JSON string body (quotes removed), which must
// lie in bytes that are never changed; plain: it has neither escapes nor
// bytes above ASCII. ok is false where appendUnquoted gives up.
func (s *sharedStrings) str(body []byte, plain bool) (string, bool) {
	if len(body) == 0 {
		return "", true
	}
	if plain {
		return unsafe.String(&body[0], len(body)), true
	}
	// A string never decodes longer than it is written, so appending to
	// a buffer with room for body never moves the strings made before.
	if cap(s.buf)-len(s.buf) < len(body) {
		s.buf = make([]byte, 0, max(len(body), sharedChunk))
	}
	start := len(s.buf)
	b, ok := appendUnquoted(s.buf, body)
	if !ok || len(b) == start {
		s.buf = b[:start]
		return "", ok
	}
	s.buf = b
	return unsafe.String(&b[start], len(b)-start), true
}
