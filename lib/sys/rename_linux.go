package sys

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// RenameNoReplace renames from to to, failing with an error that
// errors.Is fs.ErrExist (EEXIST) when to exists, whatever it is: rename(2)
// alone would replace an empty directory. Linux: renameat2
// RENAME_NOREPLACE. A file system without it gives an error that
// errors.Is ErrUnsupported.
func RenameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	return renameError("rename", from, to, err)
}

// Exchange swaps the files (or directories) at a and b in one atomic
// step: a reader of either name sees the old or the new one, never none.
// Both must exist (else an error that errors.Is fs.ErrNotExist). Linux:
// renameat2 RENAME_EXCHANGE. A file system without it gives an error
// that errors.Is ErrUnsupported.
func Exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	return renameError("exchange", a, b, err)
}

// renameError wraps err as an *os.LinkError, marking the errnos of a
// kernel or file system without the flag as unsupported.
func renameError(op, from, to string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		err = unsupported{err}
	}
	return &os.LinkError{Op: op, Old: from, New: to, Err: err}
}
