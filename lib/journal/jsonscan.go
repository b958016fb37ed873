package journal

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decoder reads JSON from data at offset i. Every method returns false
// when the input is not what it handles.
type decoder struct {
	data  []byte
	i     int
	depth int
	// shared, when set, is where the decoded strings are made (see
	// sharedStrings); nil makes each with its own allocation.
	shared *sharedStrings
}

// maxDepth bounds the nesting of raw values (encoding/json's own limit is
// far higher; deeper values are left to it).
const maxDepth = 64

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether c comes next, consuming it.
func (d *decoder) next(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object decodes {"key": value, …}, calling field with each key (without
// its quotes) positioned at its value.
func (d *decoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		d.space()
		raw, ok := d.rawStr()
		if !ok {
			return false
		}
		// A key with escapes is passed as written: it matches no field
		// name, so the line goes to encoding/json.
		key := raw[1 : len(raw)-1]
		if !d.next(':') {
			return false
		}
		d.space()
		if !field(key) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// array decodes [value, …], calling elem positioned at each value.
func (d *decoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		d.space()
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next(']')
	}
}

// str decodes a string value.
func (d *decoder) str() (string, bool) {
	raw, plain, ok := d.scanStr()
	if !ok {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if d.shared != nil {
		return d.shared.str(body, plain)
	}
	if plain {
		return string(body), true
	}
	b, ok := appendUnquoted(make([]byte, 0, len(body)), body)
	return unsafe.String(unsafe.SliceData(b), len(b)), ok
}

// rawStr returns the string value at the offset, quotes included, after
// checking it is a valid JSON string.
func (d *decoder) rawStr() ([]byte, bool) {
	raw, _, ok := d.scanStr()
	return raw, ok
}

// strByte classifies the bytes of a JSON string: 0 for bytes that stand
// for themselves in ASCII, 1 for the quote, 2 for the backslash, 3 for
// control characters (invalid), 4 for the bytes of non-ASCII characters.
var strByte = func() (t [256]byte) {
	for c := 0; c < 0x20; c++ {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = 4
	}
	return t
}()

// plainWord reports whether the eight bytes of w all stand for themselves
// in a JSON string (strByte 0): none is a quote, a backslash, a control
// character or above ASCII.
func plainWord(w uint64) bool { return specialBytes(w) == 0 }

// specialBytes has the high bit set of each byte of w that does not stand
// for itself in a JSON string (strByte is not 0), or of some: the tests
// are the classic "has a zero byte" ones, which may also flag a byte above
// one they rightly flag (a borrow), but never miss one nor flag a byte
// below the first. The lowest bit set is therefore the first such byte.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return hasZero(w^(ones*'"')) | hasZero(w^(ones*'\\')) | ((w - ones*0x20) & ^w & highs) | w&highs
}

// scanStr is rawStr that also reports whether the string is plain: ASCII
// without escapes, its body being its value.
func (d *decoder) scanStr() (raw []byte, plain, ok bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false, false
	}
	start := d.i
	plain = true
	data := d.data
	for i := d.i + 1; i < len(data); {
		// The plain bytes eight at a time, up to the first other one, found
		// in its word; one at a time near the end: they are nearly all of
		// a journal, and the switch below costs more per byte.
		for i+8 <= len(data) {
			if m := specialBytes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < len(data) && strByte[data[i]] == 0 {
			i++
		}
		if i == len(data) {
			break
		}
	special:
		switch strByte[data[i]] {
		case 1:
			d.i = i + 1
			return d.data[start:d.i], plain, true
		case 2:
			plain = false
			if i+1 >= len(d.data) {
				return nil, false, false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d.data) {
					return nil, false, false
				}
				for _, h := range d.data[i+2 : i+6] {
					if hexValue(h) < 0 {
						return nil, false, false
					}
				}
				i += 6
			default:
				return nil, false, false
			}
		case 3:
			return nil, false, false
		default:
			plain = false
			i++
		}
	}
	return nil, false, false
}

// appendUnquoted appends the decoded body of a valid JSON string with
// escapes or non-ASCII bytes to dst. Invalid UTF-8 and lone surrogates,
// which encoding/json replaces with U+FFFD, are left to it (false).
func appendUnquoted(dst, body []byte) ([]byte, bool) {
	start := 0 // the bytes from start to i stand for themselves
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			dst = append(dst, body[start:i]...)
			switch body[i+1] {
			case '"', '\\', '/':
				dst = append(dst, body[i+1])
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(body[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
						return dst, false
					}
					r = utf16.DecodeRune(r, hex4(body[i+2:i+6]))
					if r == utf8.RuneError {
						return dst, false
					}
					i += 6
				}
				dst = utf8.AppendRune(dst, r)
				start = i
				continue
			}
			i += 2
			start = i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				return dst, false
			}
			i += size
		}
	}
	return append(dst, body[start:]...), true
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r = r<<4 | rune(hexValue(c))
	}
	return r
}

// int decodes an integer written without fraction or exponent.
func (d *decoder) int() (int64, bool) {
	start := d.i
	i := d.i
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
		i++
	}
	if i == digits || (d.data[digits] == '0' && i-digits > 1) {
		return 0, false
	}
	if i < len(d.data) {
		switch d.data[i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if i-digits <= 18 { // cannot overflow: summed here, not by strconv
		var n int64
		for _, c := range d.data[digits:i] {
			n = n*10 + int64(c-'0')
		}
		if digits > start {
			n = -n
		}
		d.i = i
		return n, true
	}
	n, err := strconv.ParseInt(string(d.data[start:i]), 10, 64)
	if err != nil {
		return 0, false
	}
	d.i = i
	return n, true
}

// intField decodes an integer into an int field.
func (d *decoder) intField(dst *int) bool {
	n, ok := d.int()
	if ok && int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return ok
}

func (d *decoder) bool() (bool, bool) {
	rest := d.data[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// raw returns a copy of the value at the offset, checked to be valid JSON,
// for json.RawMessage fields.
func (d *decoder) raw() (json.RawMessage, bool) {
	start := d.i
	if !d.skip() {
		return nil, false
	}
	return append(json.RawMessage(nil), d.data[start:d.i]...), true
}

// skip moves past one valid JSON value.
func (d *decoder) skip() bool {
	if d.i >= len(d.data) {
		return false
	}
	switch c := d.data[d.i]; {
	case c == '"':
		_, ok := d.rawStr()
		return ok
	case c == '{' || c == '[':
		if d.depth++; d.depth > maxDepth {
			return false
		}
		defer func() { d.depth-- }()
		if c == '[' {
			return d.array(d.skip)
		}
		return d.object(func([]byte) bool { return d.skip() })
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
			d.i += len(lit)
			return true
		}
	}
	return false
}

// number moves past a JSON number.
func (d *decoder) number() bool {
	i := d.i
	if d.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	n := digits()
	if n == 0 || (d.data[start] == '0' && n > 1) {
		return false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	d.i = i
	return true
}
