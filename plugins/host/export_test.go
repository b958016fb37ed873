package host

import "io"

// NewPrefixWriterForTest exposes newPrefixWriter to the external tests.
func NewPrefixWriterForTest(w io.Writer, prefix string) io.Writer { return newPrefixWriter(w, prefix) }
