package journal

import (
	"bufio"
	"io"
)

// scan decodes what r holds as Scan (skip 0) or ScanFields (the fields
// whose bits are in skip left out, its strings shared) decode a file: the
// tests give it readers with buffers shorter than most lines, from when
// Scan read line by line.
func scan(r *bufio.Reader, skip uint64, fn func(*Event) error) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	how := lines{skip: skip}
	if skip != 0 {
		how.shared = &sharedStrings{}
	}
	_, err = eachEvent(data, how, fn)
	return err
}
