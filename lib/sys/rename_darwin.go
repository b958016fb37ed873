package sys

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// RenameNoReplace renames from to to, failing with an error that
// errors.Is fs.ErrExist (EEXIST) when to exists, whatever it is: rename(2)
// alone would replace an empty directory. Darwin: renamex_np
// RENAME_EXCL. A file system without it gives an error that errors.Is
// ErrUnsupported.
func RenameNoReplace(from, to string) error {
	return renameError("rename", from, to, unix.RenamexNp(from, to, unix.RENAME_EXCL))
}

// Exchange swaps the files (or directories) at a and b in one atomic
// step: a reader of either name sees the old or the new one, never none.
// Both must exist (else an error that errors.Is fs.ErrNotExist). Darwin:
// renamex_np RENAME_SWAP (APFS and HFS+ have it). A file system without
// it gives an error that errors.Is ErrUnsupported.
func Exchange(a, b string) error {
	return renameError("exchange", a, b, unix.RenamexNp(a, b, unix.RENAME_SWAP))
}

// renameError wraps err as an *os.LinkError, marking the errnos of a
// file system without the flag as unsupported (darwin has both ENOTSUP
// and EOPNOTSUPP).
func renameError(op, from, to string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
		err = unsupported{err}
	}
	return &os.LinkError{Op: op, Old: from, New: to, Err: err}
}
