package host

import "io"

// NewPrefixWriterForTest exposes newPrefixWriter to the external tests.
func NewPrefixWriterForTest(w io.Writer, prefix string) io.Writer { return newPrefixWriter(w, prefix) }

// SetAfterVerify replaces the seam between checking a plugin binary and
// starting it; the returned func restores it.
func SetAfterVerify(fn func(path string)) func() {
	old := afterVerify
	afterVerify = fn
	return func() { afterVerify = old }
}
