package runs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ErrInvalidRunID is returned for a run ID outside the allowed form.
var ErrInvalidRunID = errors.New("invalid run id: use 1 to 128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit")

// validID reports whether id has the form ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.
// It is written out rather than a regexp: that one compiles to 128 copies
// of its class, about half a millisecond at every start of every binary.
func validID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// NewID returns a fresh run ID, YYYYMMDD_HHMMSS_<6 hex>. The time is UTC so
// IDs sort the same on every host whatever its time zone.
func NewID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

// ValidateID checks a client-supplied run ID (seeds/000 §2.8.2). The form
// keeps IDs safe as a single directory name: no slashes, no "..".
func ValidateID(id string) error {
	if !validID(id) {
		return fmt.Errorf("%w (got %q)", ErrInvalidRunID, id)
	}
	return nil
}
